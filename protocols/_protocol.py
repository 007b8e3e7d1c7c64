"""A selected protocol with its behaviour: prompt, tools, dispatcher and mapping (P-60).

``Protocol`` is the descriptor of ``_version`` plus methods that call the semantics modules. Those
modules read the descriptor only and never import this one, so the dependency runs one way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._dispatch import Dispatched, dispatch, dispatch_bound
from ._maintenance import MaintainerBinding
from ._mapping import project
from ._messages import FrozenView, ToolCall
from ._options import HostOptions
from ._projection_types import AgentConfig, ProjectedRequest
from ._prompts import PLACEHOLDER, render_protocol_prompt, render_system_prompt
from ._version import ProtocolVersion
from .store import SessionStore
from .tools import ToolSchemas, tool_schemas, tools_for

__all__ = ["PLACEHOLDER", "Protocol"]


@dataclass(frozen=True)
class Protocol(ProtocolVersion):
    """Base of the four protocols (``_catalog``)."""

    # prompt (P-62) -------------------------------------------------------------------------
    def prompt(self, *, maintainer_bound: bool = False) -> str:
        """The protocol's static prompt, rendered from its Jinja2 template.

        ``maintainer_bound``: the agent is bound to the host's context maintainer, so the prompt
        names ``context_compress`` (it is offered then, and only then)."""
        return render_protocol_prompt(self, maintainer_bound=maintainer_bound)

    def system_prompt(self, agent_prompt: str, *, maintainer_bound: bool = False) -> str:
        """The agent's system prompt with the protocol prompt rendered at ``{{context_protocol}}``."""
        return render_system_prompt(agent_prompt, self.prompt(maintainer_bound=maintainer_bound))

    # tools -----------------------------------------------------------------------------------
    def tool_schemas(self, *, maintainer_bound: bool = False) -> list[dict[str, Any]]:
        """OpenAI-format schemas of this protocol's context tools, in catalog order."""
        return tool_schemas(self, maintainer_bound=maintainer_bound)

    def tool_names(self, *, maintainer_bound: bool = False) -> list[str]:
        return [t.name for t in tools_for(self, maintainer_bound=maintainer_bound)]

    def dispatch(
        self, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView
    ) -> dict[str, Any]:
        """Run one context tool call through the dispatcher (P-40 … P-44); returns the tool result.

        Without a bound maintainer ``context_compress`` is not a tool here (``unknown_tool``)."""
        return dispatch(self, store, session_id, call, frozen)

    async def dispatch_bound(
        self, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
        binding: MaintainerBinding | None,
    ) -> Dispatched:
        """The host's dispatcher: like ``dispatch``, and with ``binding`` (the agent is bound to the
        host's context maintainer) ``context_compress`` runs that maintainer on the active window."""
        return await dispatch_bound(self, store, session_id, call, frozen, binding)

    # mapping ---------------------------------------------------------------------------------
    def project(
        self,
        store: SessionStore,
        session_id: str,
        frozen: FrozenView,
        agent: AgentConfig,
        host: HostOptions | None = None,
        business_tools: list[dict[str, Any]] | ToolSchemas | None = None,
    ) -> ProjectedRequest:
        """Build the provider request from the frozen view only (P-10 … P-20, P-71, P-80, P-90).

        ``business_tools``: the host's tools, as a list or kept as ``ToolSchemas`` (built anew for each request)."""
        return project(self, store, session_id, frozen, agent, host or HostOptions(), business_tools or [])
