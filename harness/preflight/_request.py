"""The requests a protocol builds first: a fresh root session holding one user input (X-11), and the same
session one tool call later (a tool loop in progress).

The first is the request the runner's first step of a trial sends (E-1, E-3), built without a model: the
preflight reads the provider body of it, and the difference panel compares it where a group's requests were
never sent. The second is what a trial's next step sends after the model called a business tool: the state
message then follows a tool result (placement C's user state right after it), which some providers refuse
although they take the first request.
"""

from __future__ import annotations

from typing import Any

from protocols import (
    AgentConfig,
    FrozenView,
    HostOptions,
    MessageDraft,
    ProjectedRequest,
    Protocol,
    ToolCall,
    new_run_id,
)
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


LOOP_CALL_ID = "pf1loop01"
"""The tool-call id of the tool loop request: 9 letters and digits, the shape every provider's own ids fit
(Mistral takes nothing else); a real trial sends back the id the model returned."""
_LOOP_RESULT = '{"preflight": "the business tool\'s result"}'


def tool_loop_request(protocol: Protocol, agent: AgentConfig | None = None, text: str = "?",
                      host: HostOptions | None = None, business_tools: list[dict[str, Any]] | None = None,
                      reasoning: dict[str, Any] | None = None, call_id: str = LOOP_CALL_ID) -> ProjectedRequest | None:
    """The projection after the model called the first business tool and its result came back, as a trial's
    second step; ``reasoning``: what the provider returned with the call (``MessageDraft.reasoning``), which the
    harness sends back. None without business tools (no tool loop to build)."""
    names = [t.get("function", {}).get("name") for t in business_tools or [] if isinstance(t, dict)]
    name = next((n for n in names if isinstance(n, str)), None)
    if name is None:
        return None
    store = MemoryStore()
    run_id = new_run_id()
    store.create_session(_SESSION, {ACTIVE_WINDOW: MAIN_WINDOW})
    store.append(_SESSION, MessageDraft(run_id=run_id, window_id=MAIN_WINDOW, role="user", kind="input",
                                        content=text, input_run=run_id))
    store.append(_SESSION, MessageDraft(run_id=run_id, window_id=MAIN_WINDOW, role="assistant", kind="tool_call",
                                        content="", tool_calls=(ToolCall(id=call_id, name=name, arguments="{}"),),
                                        reasoning=reasoning))
    store.append(_SESSION, MessageDraft(run_id=run_id, window_id=MAIN_WINDOW, role="tool", kind="tool_result",
                                        content=_LOOP_RESULT, tool_call_id=call_id))
    return protocol.project(store, _SESSION, FrozenView(revision=store.revision(_SESSION), upper_bound=3,
                                                        run_id=run_id),
                            agent or AgentConfig(systemPrompt="{{context_protocol}}"), host, business_tools)


def last_role(protocol: Protocol) -> str:
    """The role of the last message of a request this protocol builds (probed on a one-input session)."""
    return str(first_request(protocol).messages[-1]["role"])
