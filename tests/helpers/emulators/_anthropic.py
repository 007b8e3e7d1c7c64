"""A strict loopback emulator of the Anthropic Messages API (``POST /v1/messages``).

It enforces the documented rules a request can break (Anthropic docs: messages, tool use, extended
thinking; shared notes, providers.md), answering 400 ``invalid_request_error`` as the API does:
- an API key header and ``anthropic-version``; ``model``, ``max_tokens`` and non-empty ``messages``;
- roles ``user`` / ``assistant`` only; consecutive same-role messages are combined (the API does);
  every message but a final assistant one has content, and no text block is empty;
- tool use pairing: each ``tool_use`` has its ``tool_result`` in the next message, each ``tool_result``
  answers a ``tool_use`` of the previous message, and tool results come first in their message;
- no assistant prefill on Claude 4.6 and later;
- thinking: ``budget_tokens`` >= 1024 and below ``max_tokens``; with thinking on, the final assistant
  message (a prefill, or the turn of an unfinished tool loop) must start with a thinking block, and
  ``temperature`` may only be 1 and ``top_p`` from 0.95 to 1 ("Feature compatibility");
- every thinking block sent back carries the signature this server minted for it (HMAC).
It plays the scripted oracle (``_policy``), thinks aloud when thinking is on (a signed thinking
block first), and reports usage with ``output_tokens_details.thinking_tokens``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ._policy import UnreadableInput, decide, function_tool
from ._signing import Signer

_VERSION = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)-(\d{1,2})(?!\d)")


class Rejected(Exception):
    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.message, self.status, self.kind = message, status, kind


@dataclass
class Exchange:
    body: dict[str, Any]
    status: int
    error: str | None = None
    response: dict[str, Any] | None = None


@dataclass
class AnthropicEmulator:
    signer: Signer = field(default_factory=Signer)
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def rejections(self) -> list[str]:
        return [e.error for e in self.exchanges if e.error]

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/messages", self.messages)
        return app

    async def messages(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = {}
        try:
            if not request.headers.get("x-api-key") and not request.headers.get("authorization"):
                raise Rejected("x-api-key header is required", 401, "authentication_error")
            if not request.headers.get("anthropic-version"):
                raise Rejected("anthropic-version: header is required")
            body = await request.json()
            thinking = check(body, self.signer)
            reply = self.respond(body, thinking)
        except Rejected as exc:
            self.exchanges.append(Exchange(body, exc.status, exc.message))
            return web.json_response({"type": "error", "error": {"type": exc.kind, "message": exc.message}},
                                     status=exc.status)
        self.exchanges.append(Exchange(body, 200, response=reply))
        return web.json_response(reply)

    def respond(self, body: dict[str, Any], thinking: bool) -> dict[str, Any]:
        try:
            decision = decide(to_openai(body), [function_tool(t.get("name"), t.get("description"),
                                                              t.get("input_schema")) for t in body.get("tools") or []])
        except UnreadableInput as exc:
            raise Rejected(f"the emulated model cannot read this request: {exc.message}") from None
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        content: list[dict[str, Any]] = []
        thought = ""
        if thinking:
            thought = (f"The user wants {decision.call[0]} first." if decision.call
                       else "I can answer from what I have.")
            signature = self.signer.sign("thinking", thought)
            content.append({"type": "thinking", "thinking": thought, "signature": signature})
        if decision.call is not None:
            name, args = decision.call
            content.append({"type": "tool_use", "id": f"toolu_{digest[:24]}", "name": name, "input": args})
        else:
            content.append({"type": "text", "text": decision.text or ""})
        thinking_tokens = len(thought) // 4 + 1 if thinking else 0
        output = sum(len(json.dumps(b, ensure_ascii=False)) for b in content) // 4 + 1
        return {
            "id": f"msg_{digest[:24]}", "type": "message", "role": "assistant", "model": body["model"],
            "content": content, "stop_reason": "tool_use" if decision.call else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": len(json.dumps(body, ensure_ascii=False)) // 4, "output_tokens": output,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens_details": {"thinking_tokens": thinking_tokens}},
        }


def takes_prefill(model: str) -> bool:
    match = _VERSION.search(model)
    return match is None or (int(match.group(1)), int(match.group(2))) < (4, 6)


def check(body: dict[str, Any], signer: Signer) -> bool:
    """Raises ``Rejected`` for a request the API refuses; returns whether thinking is on."""
    model, messages = body.get("model"), body.get("messages")
    if not isinstance(model, str) or not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        raise Rejected("model: Field required; max_tokens: Field required")
    if not isinstance(messages, list) or not messages:
        raise Rejected("messages: at least one message is required")
    thinking = _thinking(body)
    turns = _combined(messages)
    for index, (role, blocks) in enumerate(turns):
        final_assistant = index == len(turns) - 1 and role == "assistant"
        if not blocks and not final_assistant:
            raise Rejected(f"messages.{index}: all messages must have non-empty content except for the optional "
                           "final assistant message")
        for pos, block in enumerate(blocks):
            if block.get("type") == "text" and not str(block.get("text") or "").strip():
                raise Rejected(f"messages.{index}.content.{pos}.text: text content blocks must be non-empty")
            if block.get("type") == "thinking" and not signer.verify(block.get("signature"), "thinking",
                                                                      block.get("thinking")):
                raise Rejected(f"messages.{index}.content.{pos}: Invalid `signature` in `thinking` block")
    _pairing(turns)
    if turns[-1][0] == "assistant" and not takes_prefill(model):
        raise Rejected("This model does not support assistant message prefill. The conversation must end with a "
                       "user message.")
    if thinking:
        final = _final_assistant(turns)
        if final is not None and turns[final][1][:1] and turns[final][1][0].get("type") not in (
                "thinking", "redacted_thinking"):
            found = turns[final][1][0].get("type")
            raise Rejected(f"messages.{final}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                           f"`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
                           "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).")
    return thinking


def _thinking(body: dict[str, Any]) -> bool:
    spec = body.get("thinking")
    if spec is None:
        return False
    if not isinstance(spec, dict) or spec.get("type") not in ("enabled", "adaptive", "disabled"):
        raise Rejected("thinking: type must be enabled, adaptive or disabled")
    if spec["type"] == "enabled":
        budget = spec.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            raise Rejected("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if body["max_tokens"] <= budget:
            raise Rejected("`max_tokens` must be greater than `thinking.budget_tokens`")
    if spec["type"] != "disabled":
        if body.get("temperature", 1) != 1:
            raise Rejected("`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.")
        if not 0.95 <= body.get("top_p", 1) <= 1:
            raise Rejected("`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled or in "
                           "adaptive mode.")
    return bool(spec["type"] != "disabled")


def _combined(messages: list[Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise Rejected(f"messages.{index}.role: Input should be 'user' or 'assistant'")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return turns


def _pairing(turns: list[tuple[str, list[dict[str, Any]]]]) -> None:
    for index, (role, blocks) in enumerate(turns):
        if role == "assistant":
            uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            answered = {b.get("tool_use_id") for b in turns[index + 1][1]} if index + 1 < len(turns) else set()
            missing = [u for u in uses if u not in answered]
            if missing:
                raise Rejected(f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
                               f"immediately after: {', '.join(map(str, missing))}. Each `tool_use` block must have "
                               "a corresponding `tool_result` block in the next message.")
            continue
        previous = turns[index - 1][1] if index > 0 else []
        offered = {b.get("id") for b in previous if b.get("type") == "tool_use"}
        kinds = [b.get("type") for b in blocks]
        results = [i for i, k in enumerate(kinds) if k == "tool_result"]
        texts = [i for i, k in enumerate(kinds) if k == "text"]
        if results and texts and min(texts) < max(results):
            raise Rejected(f"messages.{index}: tool_result blocks must come first in the message, before any text")
        for pos, block in enumerate(blocks):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in offered:
                raise Rejected(f"messages.{index}.content.{pos}: unexpected `tool_use_id` found in `tool_result` "
                               f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a "
                               "corresponding `tool_use` block in the previous message.")


def _final_assistant(turns: list[tuple[str, list[dict[str, Any]]]]) -> int | None:
    """The trailing assistant message, or the assistant message of an unfinished tool loop."""
    if turns[-1][0] == "assistant":
        return len(turns) - 1
    if len(turns) >= 2 and any(b.get("type") == "tool_result" for b in turns[-1][1]):
        return len(turns) - 2
    return None


def to_openai(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as OpenAI-shaped messages, one per block (what the oracle reads)."""
    system = body.get("system")
    text = system if isinstance(system, str) else "".join(str(b.get("text", "")) for b in system or [])
    out: list[dict[str, Any]] = [{"role": "system", "content": text}] if text else []
    for role, blocks in _combined(body["messages"]):
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                out.append({"role": role, "content": block.get("text", "")})
            elif kind == "tool_use":
                out.append({"role": "assistant", "content": "", "tool_calls": [{
                    "id": block.get("id"), "type": "function",
                    "function": {"name": block.get("name"), "arguments": json.dumps(block.get("input") or {})}}]})
            elif kind == "tool_result":
                content = block.get("content")
                result = content if isinstance(content, str) else "".join(
                    str(b.get("text", "")) for b in content or [] if isinstance(b, dict))
                out.append({"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": result})
    return out
