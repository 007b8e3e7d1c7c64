"""Reading one provider request the way a model would (X-60): header, state, history, tool results.

Derived messages start with a tag line (``[context_header]``, ``[context_fold]``,
``[context_state]``) followed by one JSON object (docs/design.md). Where the model stands: the
state's ``windowId`` (v2, v3), else the header's ``active_window.id`` (v1), else ``main`` (prefix@2
offers no context tools, so there are no windows).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

MAIN = "main"
DERIVED_TAGS = ("context_header", "context_fold", "context_state")
_TAG = re.compile(r"^\[(context_header|context_fold|context_state)\]")


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def derived_tag(message: dict[str, Any]) -> str | None:
    match = _TAG.match(text_of(message))
    return match.group(1) if match else None


def derived_body(message: dict[str, Any]) -> dict[str, Any]:
    """The JSON object after the tag line ({} if it cannot be read)."""
    text = text_of(message)
    start = text.find("\n{")
    if start < 0:
        return {}
    try:
        body, _ = json.JSONDecoder().raw_decode(text[start + 1:])
    except json.JSONDecodeError:
        return {}
    return body if isinstance(body, dict) else {}


def parse_object(text: str) -> dict[str, Any] | None:
    """A JSON object, or None when the text is not one (invalid arguments stay visible as such)."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


@dataclass
class Call:
    """One tool call visible in the request, with its result when the result is visible.

    Arguments and result are parsed on first use: a long window has many calls, a decision looks
    at few of them (Q-2).
    """

    position: int  # index of the assistant message in the request
    batch: int  # how many calls that assistant message carried
    id: str
    name: str
    arguments: str
    result_text: str | None

    @cached_property
    def args(self) -> dict[str, Any] | None:
        return parse_object(self.arguments)

    @cached_property
    def result(self) -> dict[str, Any] | None:
        if self.result_text is None:
            return None
        parsed = parse_object(self.result_text)
        return parsed if parsed is not None else {"raw": self.result_text}

    @property
    def ok(self) -> bool:
        return bool(self.result and self.result.get("success") is True)

    @property
    def error(self) -> dict[str, Any]:
        err = (self.result or {}).get("error")
        return err if isinstance(err, dict) else {}

    @property
    def error_code(self) -> str | None:
        code = self.error.get("code")
        return str(code) if code else None

    def arg(self, key: str) -> Any:
        return (self.args or {}).get(key)


@dataclass
class View:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    _schemas: dict[str, dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self._schemas = {}
        for tool in self.tools:
            fn = tool.get("function", tool)
            if isinstance(fn, dict) and fn.get("name"):
                params = fn.get("parameters")
                self._schemas[str(fn["name"])] = params if isinstance(params, dict) else {}

    # tools ---------------------------------------------------------------------------------------
    @property
    def tool_names(self) -> list[str]:
        return list(self._schemas)

    def offers(self, name: str) -> bool:
        return name in self._schemas

    @property
    def windows(self) -> bool:
        """Context tools offered means windows exist (prefix@2 offers none)."""
        return self.offers("context_window_open")

    def wants(self, tool: str, argument: str) -> bool:
        """Whether the tool's schema knows the argument (``expectedWindowId`` only on v2/v3)."""
        props = self._schemas.get(tool, {}).get("properties")
        return isinstance(props, dict) and argument in props

    # derived messages ----------------------------------------------------------------------------
    @cached_property
    def header(self) -> dict[str, Any]:
        for message in self.messages:
            if derived_tag(message) == "context_header":
                return derived_body(message)
        return {}

    @cached_property
    def state(self) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            if derived_tag(message) == "context_state":
                return derived_body(message)
        return None

    @property
    def active_window(self) -> dict[str, Any]:
        window = self.header.get("active_window")
        return window if isinstance(window, dict) else {}

    @property
    def current_window(self) -> str:
        if self.state and self.state.get("windowId"):
            return str(self.state["windowId"])
        if self.active_window.get("id"):
            return str(self.active_window["id"])
        return MAIN

    @property
    def working_memory(self) -> str:
        memory = self.active_window.get("workingMemory")
        return memory if isinstance(memory, str) else ""

    # the user's request --------------------------------------------------------------------------
    @cached_property
    def request_index(self) -> int | None:
        """The most recent real user message: a user-role message that is not a derived block."""
        for pos in range(len(self.messages) - 1, -1, -1):
            message = self.messages[pos]
            if message.get("role") == "user" and derived_tag(message) is None:
                return pos
        return None

    @cached_property
    def last_user_index(self) -> int | None:
        """The last user-role message, whatever it is (the state block under placement C)."""
        for pos in range(len(self.messages) - 1, -1, -1):
            if self.messages[pos].get("role") == "user":
                return pos
        return None

    def text_at(self, pos: int | None) -> str:
        return "" if pos is None else text_of(self.messages[pos])

    def user_texts_before(self, pos: int | None) -> list[str]:
        """Real user messages before ``pos`` (earlier requests), oldest first."""
        end = len(self.messages) if pos is None else pos
        return [text_of(m) for m in self.messages[:end] if m.get("role") == "user" and derived_tag(m) is None]

    def answers_before(self, pos: int | None) -> list[str]:
        """Final answers (assistant text without tool calls, not derived) before ``pos``."""
        end = len(self.messages) if pos is None else pos
        return [
            text_of(m) for m in self.messages[:end]
            if m.get("role") == "assistant" and not m.get("tool_calls") and derived_tag(m) is None
        ]

    # tool calls ----------------------------------------------------------------------------------
    @cached_property
    def calls(self) -> list[Call]:
        results: dict[str, str] = {}
        for message in self.messages:
            if message.get("role") == "tool" and message.get("tool_call_id"):
                results[str(message["tool_call_id"])] = text_of(message)
        calls: list[Call] = []
        for pos, message in enumerate(self.messages):
            batch = (message.get("tool_calls") or []) if message.get("role") == "assistant" else []
            for raw in batch:
                fn = raw.get("function") or {}
                arguments = str(fn.get("arguments") or "")
                cid = str(raw.get("id") or "")
                calls.append(Call(pos, len(batch), cid, str(fn.get("name") or ""), arguments, results.get(cid)))
        return calls

    def calls_after(self, pos: int | None) -> list[Call]:
        return [c for c in self.calls if pos is None or c.position > pos]

    def calls_before(self, pos: int | None) -> list[Call]:
        return [] if pos is None else [c for c in self.calls if c.position < pos]
