"""What a projection produces (P-16, P-19, O-40): provider messages and their sources."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._messages import WireModel

SourceType = Literal["system", "raw", "context_header", "context_fold", "context_state"]


class ProjectionSource(WireModel):
    """Where one provider message comes from (P-19).

    Raw messages name their MessageId; derived messages name the derived type, fold id where
    relevant, session, window, first and last index and the full list of raw MessageIds.
    """

    type: SourceType
    message_ids: tuple[str, ...] = ()
    fold_id: str | None = None
    session_id: str | None = None
    window_id: str | None = None
    first_index: int | None = None
    last_index: int | None = None


class AgentConfig(BaseModel):
    """The agent as a state file gives it: a system prompt with ``{{context_protocol}}`` and inputs."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid", frozen=True)

    systemPrompt: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    contextMaintainer: bool = False
    """The agent is bound to the host's context maintainer (source: 若 Agent 绑定了 context-maintainer，
    也可以在阶段完成后主动调用): the unified protocols then offer ``context_compress`` and their prompt
    names it. prefix@2 never offers it."""


class ProjectedRequest(BaseModel):
    """One provider request as handed to litellm, with a source per message."""

    model_config = ConfigDict(frozen=True)

    messages: list[dict[str, Any]]
    sources: list[ProjectionSource]
    tools: list[dict[str, Any]]
    tools_json: str | None = None
    """``json.dumps(tools, ensure_ascii=False)`` when the projection has it (joined from texts written once:
    the protocol's schemas per family, the business tools' once a step), else None."""

    def wire(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "sources": [s.wire() for s in self.sources],
            "tools": self.tools,
        }
