"""A selected protocol: (id, version, resolved options) plus its prompt, tools and mapping (P-60)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ._errors import InvalidInput
from ._messages import FrozenView, ToolCall
from ._options import HostOptions, _Options
from ._projection_types import AgentConfig, ProjectedRequest
from .store import SessionStore

PLACEHOLDER = "{{context_protocol}}"


@dataclass(frozen=True)
class Protocol:
    """Base of the four protocols. Subclasses set the class variables and override hooks."""

    options: _Options

    id: ClassVar[str]
    version: ClassVar[int]
    has_windows: ClassVar[bool] = True
    has_folds: ClassVar[bool] = True
    has_state_message: ClassVar[bool] = False
    requires_expected_window: ClassVar[bool] = False
    escape_non_ascii: ClassVar[bool] = False
    prompt_template: ClassVar[str]

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"

    @property
    def resolved_options(self) -> dict[str, Any]:
        return self.options.model_dump()

    # prompt (P-62) -------------------------------------------------------------------------
    def prompt(self) -> str:
        """The protocol's static prompt, rendered from its Jinja2 template."""
        from ._prompts import render_protocol_prompt

        return render_protocol_prompt(self)

    def system_prompt(self, agent_prompt: str) -> str:
        """The agent's system prompt with the protocol prompt rendered at ``{{context_protocol}}``."""
        from ._prompts import render_system_prompt

        if PLACEHOLDER not in agent_prompt.replace(" ", ""):
            raise InvalidInput(f"agent.systemPrompt must contain {PLACEHOLDER} (P-62)")
        return render_system_prompt(agent_prompt, self.prompt())

    # tools -----------------------------------------------------------------------------------
    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-format schemas of this protocol's context tools, in catalog order."""
        from .tools import tool_schemas

        return tool_schemas(self)

    def tool_names(self) -> list[str]:
        from .tools import tools_for

        return [t.name for t in tools_for(self)]

    def dispatch(
        self, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView
    ) -> dict[str, Any]:
        """Run one context tool call through the dispatcher (P-40 … P-44); returns the tool result."""
        from ._dispatch import dispatch

        return dispatch(self, store, session_id, call, frozen)

    # mapping ---------------------------------------------------------------------------------
    def project(
        self,
        store: SessionStore,
        session_id: str,
        frozen: FrozenView,
        agent: AgentConfig,
        host: HostOptions | None = None,
        business_tools: list[dict[str, Any]] | None = None,
    ) -> ProjectedRequest:
        """Build the provider request from the frozen view only (P-10 … P-20, P-71, P-80, P-90)."""
        from ._mapping import project

        return project(self, store, session_id, frozen, agent, host or HostOptions(), business_tools or [])
