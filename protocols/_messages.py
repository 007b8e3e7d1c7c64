"""Raw session messages (P-1 … P-5): immutable values, camelCase on the wire."""

from __future__ import annotations

import re
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

Role = Literal["user", "assistant", "tool"]
Kind = Literal["input", "approval_feedback", "runtime_instruction", "text", "tool_call", "tool_result"]

ROLE_OF_KIND: dict[str, str] = {
    "input": "user",
    "approval_feedback": "user",
    "runtime_instruction": "user",
    "text": "assistant",
    "tool_call": "assistant",
    "tool_result": "tool",
}

RUN_ID_RE = re.compile(r"^[0-9a-f]{32}$")
"""A run id in .NET "N" format: 32 lowercase hex digits, no hyphens (P-3, E-1)."""


def new_run_id() -> str:
    return uuid.uuid4().hex


class WireModel(BaseModel):
    """Frozen pydantic value with camelCase JSON names and snake_case attributes."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid"
    )

    def wire(self) -> dict[str, Any]:
        """The JSON form used in state files, snapshots and tool results."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ToolCall(WireModel):
    """One tool call as the model produced it: ``arguments`` is the raw string, maybe invalid JSON."""

    id: str
    name: str
    arguments: str


class FrozenView(WireModel):
    """What a request saw (P-5): the KV revision, the highest message index, the run."""

    revision: int = Field(ge=0)
    upper_bound: int = Field(ge=0)
    run_id: str


class MessageDraft(WireModel):
    """A message before the store gives it an index and an id (E-10)."""

    run_id: str
    window_id: str
    role: Role
    kind: Kind
    content: str | list[dict[str, Any]] = ""
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_call_id: str | None = None
    input_run: str | None = None
    frozen_view: FrozenView | None = None
    id: str | None = None
    reasoning: dict[str, Any] | None = None
    """What the provider returned for the model's reasoning with this assistant message, verbatim, in the
    keys of the OpenAI-format message the projection sends back: ``thinking_blocks`` (with their
    signatures), ``reasoning_content``, and ``provider_specific_fields`` per tool call id. Raw like the
    content (P-1): written once with the message, never edited; providers require it back within a tool
    loop (thinking blocks, thought signatures). None when the provider returned none."""

    @model_validator(mode="after")
    def _consistent(self) -> MessageDraft:
        if self.reasoning is not None and self.role != "assistant":
            raise ValueError("only assistant messages carry the model's reasoning")
        if ROLE_OF_KIND[self.kind] != self.role:
            raise ValueError(f"kind {self.kind!r} requires role {ROLE_OF_KIND[self.kind]!r}, not {self.role!r}")
        if self.kind == "tool_call" and not self.tool_calls:
            raise ValueError("an assistant/tool_call message needs at least one tool call")
        if self.kind != "tool_call" and self.tool_calls:
            raise ValueError(f"only assistant/tool_call messages carry toolCalls, not {self.kind!r}")
        if self.kind == "tool_result" and not self.tool_call_id:
            raise ValueError("a tool/tool_result message needs toolCallId")
        if self.kind == "input":
            if self.input_run is None:
                raise ValueError("a user/input message needs inputRun (P-3)")
            if not RUN_ID_RE.match(self.input_run):
                raise ValueError("inputRun must be 32 lowercase hex digits (.NET 'N' format)")
        return self


class RawMessage(MessageDraft):
    """An immutable raw message (P-1, P-2). ``index`` is session-local, gapless, from 1."""

    id: str
    index: int = Field(ge=1)

    @field_validator("id")
    @classmethod
    def _non_empty(cls, v: str) -> str:
        if not v:
            raise ValueError("message id must not be empty")
        return v

    @property
    def kind_path(self) -> str:
        """``role/kind``, as the protocol names kinds (``assistant/tool_call``)."""
        return f"{self.role}/{self.kind}"

    def text(self) -> str:
        """Content as plain text (text parts joined) for search, previews and hashes."""
        if isinstance(self.content, str):
            return self.content
        return "".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
