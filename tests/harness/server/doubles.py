"""A tiny scripted model for the model-layer and server tests: a function of the request.

- tools offered and the last message is the user's: call the first tool with ``{"echo": <text>}``;
- last message is a tool result: answer ``done: <result>``;
- otherwise: answer ``echo: <last message text>``.
"""

from __future__ import annotations

import json
from typing import Any

PLAIN = "echo"


class EchoModel:
    name = PLAIN

    def __init__(self) -> None:
        self.calls = 0

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        self.calls += 1
        last = messages[-1]
        text = str(last.get("content") or "")
        if last.get("role") == "tool":
            return {"content": f"done: {text}", "tool_calls": []}
        if tools and last.get("role") == "user":
            name = tools[0]["function"]["name"]
            call = {"id": f"call_{len(messages)}", "name": name, "arguments": json.dumps({"echo": text})}
            return {"content": None, "tool_calls": [call]}
        return {"content": f"echo: {text}", "tool_calls": []}


class Registry:
    """``resolve_model`` for tests: knows ``echo`` only (KeyError otherwise, as the contract says)."""

    def __init__(self) -> None:
        self.echo = EchoModel()

    def __call__(self, name: str) -> EchoModel:
        if name == PLAIN:
            return self.echo
        raise KeyError(name)


LOOKUP_TOOL = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look something up.",
        "parameters": {"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]},
    },
}
