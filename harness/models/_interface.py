"""The one model interface (E-4): the litellm adapter and every scripted model implement it."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._types import ModelOutput, ModelRequest


@runtime_checkable
class ChatModel(Protocol):
    async def generate(self, request: ModelRequest) -> ModelOutput:
        """Send one request; return the output or raise ``ModelCallError``."""
        ...
