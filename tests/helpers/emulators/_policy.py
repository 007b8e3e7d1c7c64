"""The small model the emulators play: the scripted oracle, deciding from the request it was sent.

The emulators translate the provider body back into OpenAI-shaped messages, one message per block
(so a merged turn's derived text stays readable as its own message, tag line first), and ask
``scripted/oracle``'s policy (``harness.scripted._oracle``) what to do: answer, or call one tool.
Nothing is replayed from a list; the same request gets the same decision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.models import UnreadableInput
from harness.scripted._oracle import OracleModel


@dataclass(frozen=True)
class Decision:
    text: str | None
    call: tuple[str, dict[str, Any]] | None  # (tool name, arguments)


def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Decision:
    """Raises ``UnreadableInput`` when the request holds no task the oracle reads."""
    reply = OracleModel().reply(messages, tools)
    if reply.tool_calls:
        first = reply.tool_calls[0]
        return Decision(None, (first.name, json.loads(first.arguments)))
    return Decision(reply.content or "", None)


def function_tool(name: str, description: str | None, parameters: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description or "",
                                             "parameters": parameters if isinstance(parameters, dict) else {}}}


__all__ = ["Decision", "UnreadableInput", "decide", "function_tool"]
