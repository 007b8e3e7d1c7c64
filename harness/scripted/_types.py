"""What a scripted model returns, and the one method every scripted model implements (X-60)."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ScriptedToolCall(BaseModel):
    """One tool call; ``arguments`` is the JSON text as the model produced it (possibly invalid)."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str


class ScriptedReply(BaseModel):
    model_config = ConfigDict(frozen=True)

    content: str | None = None
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)


class ScriptedModel(ABC):
    """A deterministic model: its reply is a function of the request, never of a replay list."""

    name: str

    @abstractmethod
    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply: ...


def call_id(messages: list[dict[str, Any]], name: str, arguments: str, position: int = 0) -> str:
    """A deterministic tool call id: a digest of the whole request and the call.

    The whole request (not only its length) goes in because call ids must be unique in a session:
    the dispatcher replays a stored receipt for a known id (P-42), and two windows' views can have
    the same length.
    """
    digest = hashlib.sha256()
    digest.update(json.dumps(messages, ensure_ascii=False, sort_keys=True, default=str).encode())
    digest.update(f"\x00{position}\x00{name}\x00{arguments}".encode())
    return "call_" + digest.hexdigest()[:16]


def make_reply(
    messages: list[dict[str, Any]], content: str | None = None, calls: list[tuple[str, str]] | None = None
) -> ScriptedReply:
    """A reply from ``(name, arguments_json)`` pairs, with deterministic ids."""
    tool_calls = [
        ScriptedToolCall(id=call_id(messages, name, args, pos), name=name, arguments=args)
        for pos, (name, args) in enumerate(calls or [])
    ]
    return ScriptedReply(content=content, tool_calls=tool_calls)
