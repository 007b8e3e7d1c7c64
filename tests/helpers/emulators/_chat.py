"""Strict loopback emulators of OpenAI-format chat APIs (``POST .../chat/completions``): Mistral, OpenAI's
reasoning models, DeepSeek's thinking mode.

Each enforces the validation its provider documents, answering 400 with the provider's own message
(shared notes, providers.md Part 2), and counts what it refused (``rejections``):
- **Mistral** (mistral-common's validator, serving mode): a request ends with a user or tool message, or an
  assistant one with ``"prefix": true`` (``Expected last role User or Tool (or Assistant with prefix True) for
  serving but got assistant``); roles follow each other as its validator allows (``Unexpected role 'user' after
  role 'tool'``); tool-call ids are 9 letters and digits. Its own tool-call ids have that shape.
- **OpenAI reasoning models** (gpt-5, o-series): ``temperature`` only 1 (``Unsupported value: 'temperature' does
  not support 0 with this model. Only the default (1) value is supported.``), no ``top_p``, ``max_tokens``
  replaced by ``max_completion_tokens``; ``reasoning_effort`` only on a reasoning model. Usage reports
  ``reasoning_tokens``.
- **DeepSeek thinking mode** (api-docs.deepseek.com/guides/thinking_mode): every assistant message of a
  tool-calling turn carries its ``reasoning_content`` (``The reasoning_content in the thinking mode must be
  passed back to the API.``); deepseek-reasoner takes no trailing assistant message without prefix mode. Each
  answer carries ``reasoning_content`` and usage its ``reasoning_tokens``.
Every emulator plays the scripted oracle (``_policy``) on the messages it was sent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ._anthropic import Exchange, Rejected
from ._policy import UnreadableInput, decide

Validator = Callable[[dict[str, Any]], None]
_MISTRAL_ID = re.compile(r"^[A-Za-z0-9]{9}$")
_MISTRAL_AFTER = {"system": {"system", "user", "assistant"}, "user": {"user", "assistant", "system"},
                  "assistant": {"assistant", "user", "tool"}, "tool": {"assistant", "tool"}}


def mistral(body: dict[str, Any]) -> None:
    messages = _messages(body)
    previous = None
    for message in messages:
        role = message.get("role")
        if previous is not None and role not in _MISTRAL_AFTER.get(previous, set()):
            raise Rejected(f"Unexpected role '{role}' after role '{previous}'")
        previous = role
        ids = [c.get("id") for c in message.get("tool_calls") or []]
        ids += [message["tool_call_id"]] if role == "tool" else []
        for call_id in ids:
            if not _MISTRAL_ID.match(str(call_id)):
                raise Rejected(f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9.")
    last = messages[-1]
    if last.get("role") not in ("user", "tool") and not (last.get("role") == "assistant" and last.get("prefix")):
        raise Rejected(f"Expected last role User or Tool (or Assistant with prefix True) for serving but got "
                       f"{last.get('role')}")


def openai_reasoning(body: dict[str, Any]) -> None:
    model = str(body.get("model"))
    reasoning = model.startswith(("gpt-5", "o1", "o3", "o4"))
    if reasoning:
        if body.get("temperature", 1) != 1:
            raise Rejected(f"Unsupported value: 'temperature' does not support {body['temperature']:g} with this "
                           "model. Only the default (1) value is supported.")
        for name, instead in (("top_p", None), ("max_tokens", "max_completion_tokens")):
            if name in body:
                raise Rejected(f"Unsupported parameter: '{name}' is not supported with this model."
                               + (f" Use '{instead}' instead." if instead else ""))
    elif "reasoning_effort" in body:
        raise Rejected("Unrecognized request argument supplied: reasoning_effort")
    _messages(body)


def deepseek(body: dict[str, Any]) -> None:
    messages = _messages(body)
    if _deepseek_thinks(body):
        for message in messages:
            if message.get("role") == "assistant" and message.get("tool_calls") and not message.get(
                    "reasoning_content"):
                raise Rejected("The reasoning_content in the thinking mode must be passed back to the API.")
    last = messages[-1]
    if body.get("model") == "deepseek-reasoner" and last.get("role") == "assistant" and not last.get("prefix"):
        raise Rejected("The last message of deepseek-reasoner must be a user message, or an assistant message with "
                       "prefix mode on (refer to https://api-docs.deepseek.com/guides/chat_prefix_completion).")


def _deepseek_thinks(body: dict[str, Any]) -> bool:
    spec = body.get("thinking")
    return body.get("model") == "deepseek-reasoner" or (isinstance(spec, dict) and spec.get("type") == "enabled")


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages")
    if not isinstance(body.get("model"), str) or not isinstance(messages, list) or not messages:
        raise Rejected("model and a non-empty messages list are required")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant", "tool"):
            raise Rejected(f"messages.{index}.role: Input should be 'system', 'user', 'assistant' or 'tool'")
    return messages


@dataclass
class ChatEmulator:
    """``validate`` is the provider's (``mistral``, ``openai_reasoning``, ``deepseek``); ``ids`` shapes its own
    tool-call ids (Mistral: 9 letters and digits); ``thinks`` decides per body whether it reasons aloud."""

    validate: Validator
    ids: Callable[[str], str] = field(default=lambda digest: f"call_{digest[:24]}")
    thinks: Callable[[dict[str, Any]], bool] = field(default=lambda body: False)
    shows_reasoning: bool = True
    """Whether its answer carries the reasoning text (``reasoning_content``: DeepSeek; OpenAI's Chat Completions
    returns none, only its token count)."""
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def rejections(self) -> list[str]:
        return [e.error for e in self.exchanges if e.error]

    def app(self) -> web.Application:
        app = web.Application()
        for path in ("/v1/chat/completions", "/chat/completions", "/beta/chat/completions"):
            app.router.add_post(path, self.chat)
        return app

    async def chat(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = {}
        try:
            if not request.headers.get("authorization"):
                raise Rejected("missing Authorization header", 401, "authentication_error")
            body = await request.json()
            self.validate(body)
            reply = self.respond(body)
        except Rejected as exc:
            self.exchanges.append(Exchange(body, exc.status, exc.message))
            return web.json_response({"object": "error", "message": exc.message, "type": exc.kind, "param": None,
                                      "code": None, "error": {"message": exc.message, "type": exc.kind}},
                                     status=exc.status)
        self.exchanges.append(Exchange(body, 200, response=reply))
        return web.json_response(reply)

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            decision = decide(body["messages"], body.get("tools") or [])
        except UnreadableInput as exc:
            raise Rejected(f"the emulated model cannot read this request: {exc.message}") from None
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        message: dict[str, Any] = {"role": "assistant", "content": decision.text}
        thought = ""
        if self.thinks(body):
            thought = (f"The user wants {decision.call[0]} first." if decision.call
                       else "I can answer from what I have.")
            if self.shows_reasoning:
                message["reasoning_content"] = thought
        if decision.call is not None:
            name, args = decision.call
            message["tool_calls"] = [{"id": self.ids(digest), "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]
        reasoning = len(thought) // 4 + 1 if thought else 0
        output = len(json.dumps(message, ensure_ascii=False)) // 4 + 1
        prompt = len(json.dumps(body["messages"], ensure_ascii=False)) // 4
        return {"id": f"chatcmpl-{digest[:24]}", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if decision.call else "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
                          "completion_tokens_details": {"reasoning_tokens": reasoning}}}


def mistral_emulator() -> ChatEmulator:
    return ChatEmulator(mistral, ids=lambda digest: "".join(c for c in digest if c.isalnum())[:9])


def openai_emulator() -> ChatEmulator:
    return ChatEmulator(openai_reasoning, shows_reasoning=False,
                        thinks=lambda body: str(body.get("model")).startswith(("gpt-5", "o1", "o3", "o4")))


def deepseek_emulator() -> ChatEmulator:
    return ChatEmulator(deepseek, thinks=_deepseek_thinks)
