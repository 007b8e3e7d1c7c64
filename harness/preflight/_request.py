"""The request a protocol builds first: a fresh root session holding one user input (X-11).

This is the request the runner's first step of a trial sends (E-1, E-3), built without a model:
the preflight reads the provider body of it, and the difference panel compares it where a group's
requests were never sent.
"""

from __future__ import annotations

from typing import Any

from protocols import AgentConfig, FrozenView, HostOptions, MessageDraft, ProjectedRequest, Protocol, new_run_id
from protocols._state import ACTIVE_WINDOW, MAIN_WINDOW
from protocols.store import MemoryStore

_SESSION = "preflight"


def first_request(protocol: Protocol, agent: AgentConfig | None = None, text: str = "?",
                  host: HostOptions | None = None, business_tools: list[dict[str, Any]] | None = None
                  ) -> ProjectedRequest:
    """The projection of a fresh root session after the user input ``text``, as a trial's first step."""
    store = MemoryStore()
    run_id = new_run_id()
    store.create_session(_SESSION, {ACTIVE_WINDOW: MAIN_WINDOW})
    store.append(_SESSION, MessageDraft(run_id=run_id, window_id=MAIN_WINDOW, role="user", kind="input",
                                        content=text, input_run=run_id))
    return protocol.project(store, _SESSION, FrozenView(revision=0, upper_bound=1, run_id=run_id),
                            agent or AgentConfig(systemPrompt="{{context_protocol}}"), host, business_tools)


def last_role(protocol: Protocol) -> str:
    """The role of the last message of a request this protocol builds (probed on a one-input session)."""
    return str(first_request(protocol).messages[-1]["role"])
