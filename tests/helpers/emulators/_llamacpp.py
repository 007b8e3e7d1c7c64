"""A strict loopback emulator of llama.cpp's ``llama-server`` with ``--jinja``: an OpenAI-compatible
``POST /v1/chat/completions``, ``POST /apply-template``, ``GET /props``, ``GET /health`` and ``GET /v1/models``.

It renders a real chat template with jinja2 the way llama.cpp's server does (facts from the llama.cpp
sources llama-cpp-python 0.3.36 vendors: tools/server/server-common.cpp ``oaicompat_chat_params_parse``,
common/chat.cpp ``common_chat_templates_apply``, tools/server/server.cpp ``ex_wrapper``):
- a message other than an assistant one without ``content``, or an assistant one with neither content nor
  tool calls: 400 ``invalid_request_error``;
- a trailing assistant message is a prefill by default (``--prefill-assistant``): the messages before it are
  rendered with the generation prompt and its content is appended, so the prompt ends inside it, with no
  end of turn; two assistant messages at the end are refused (400 "Cannot have 2 or more assistant messages
  at the end of the list."), and so is continuing one that makes tool calls; with ``prefill_assistant=False``
  (``--no-prefill-assistant``) it is a full message followed by the generation prompt;
- with thinking on (``enable_thinking``, or ``chat_template_kwargs.enable_thinking``), a prefill is refused
  with 400 "Assistant response prefill is incompatible with enable_thinking." (llama.cpp before it learnt to
  continue a reasoning message; public reports 2025–2026);
- a template without a system role gets the system message merged into the next message (chat.cpp
  ``system_message_not_supported``); tool-call arguments reach the template as objects;
- the template's ``raise_exception`` is HTTP 500 ``server_error`` with the message ``Jinja Exception: …``
  (a ``std::exception``, not an ``invalid_argument``), the error body ``{"error": {"code", "message", "type"}}``;
  ``template_error_status=400`` plays the build ``scripts/llama_server.sh`` pins, whose automatic chat parser
  renders the template first and wraps the error (HTTP 400 "Unable to generate parser for this template.
  Automatic parser generation failed: …", the template source and a caret, "Error: Jinja Exception: …";
  measured against that build with Gemma 2's template, 2026-12-04).
``/apply-template`` runs the same code path and answers ``{"prompt": …}``; ``/props`` answers the template as
``chat_template`` (llama.cpp's /props says nothing about prefill).

Its chat answers are decided from the rendered prompt: a prompt that ends with the template's generation
prompt opens a new assistant turn, which the scripted oracle answers from the messages (``_policy``); a
prompt that ends inside an assistant message is continued, as ``scripted/prefill-continuer`` continues a
trailing state message (it writes the state out again and never answers). ``counts`` holds the requests
per path, ``exchanges`` every chat request with its status.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from harness.scripted._prefill_continuer import continuation

from ._anthropic import Exchange, Rejected
from ._policy import UnreadableInput, decide

TEMPLATES = Path(__file__).with_name("templates")
QWEN = (TEMPLATES / "qwen2.5-instruct.jinja").read_text(encoding="utf-8")
"""Qwen2.5-Instruct's ChatML template with tools (llama.cpp models/templates/Qwen-Qwen2.5-7B-Instruct.jinja)."""
GEMMA = (TEMPLATES / "gemma-2-it.jinja").read_text(encoding="utf-8")
"""Gemma 2's template, which requires alternating user/model turns (llama.cpp
models/templates/google-gemma-2-2b-it.jinja)."""
TEMPLATE_TOKENS = {QWEN: ("", "<|im_end|>"), GEMMA: ("<bos>", "<eos>")}


def _raise(message: str) -> None:
    raise TemplateError(message)


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = lambda value, indent=None: json.dumps(value, ensure_ascii=False, indent=indent)
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: time.strftime(fmt)
    return env


@dataclass
class LlamaCppEmulator:
    template: str = QWEN
    prefill_assistant: bool = True
    enable_thinking: bool = False
    template_error_status: int = 500
    alias: str = "qwen"
    exchanges: list[Exchange] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._compiled = _environment().from_string(self.template)
        self.bos, self.eos = TEMPLATE_TOKENS.get(self.template, ("", ""))
        self.supports_system = self._renders_system()

    @property
    def rejections(self) -> list[str]:
        return [e.error for e in self.exchanges if e.error]

    def app(self) -> web.Application:
        app = web.Application()
        for prefix in ("", "/v1"):
            app.router.add_post(f"{prefix}/chat/completions", self.chat)
            app.router.add_get(f"{prefix}/models", self.models)
            app.router.add_get(f"{prefix}/health", self.health)
        app.router.add_post("/apply-template", self.apply_template)
        app.router.add_get("/props", self.props)
        return app

    # endpoints -------------------------------------------------------------------------------
    async def chat(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        body: dict[str, Any] = {}
        try:
            body = await request.json()
            prompt, messages = self.render(body)
            reply = self.respond(body, prompt, messages)
        except Rejected as exc:
            self.exchanges.append(Exchange(body, exc.status, exc.message))
            return _error(exc)
        self.exchanges.append(Exchange(body, 200, response=reply))
        return web.json_response(reply)

    async def apply_template(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        try:
            prompt, _ = self.render(await request.json())
        except Rejected as exc:
            return _error(exc)
        return web.json_response({"prompt": prompt})

    async def props(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        return web.json_response({
            "default_generation_settings": {"n_ctx": 8192, "params": {"temperature": 0.8}},
            "total_slots": 2, "model_alias": self.alias, "model_path": f"/models/{self.alias}.gguf",
            "modalities": {"vision": False, "video": False, "audio": False},
            "chat_template": self.template, "chat_template_caps": {"supports_system_role": self.supports_system},
            "bos_token": self.bos, "eos_token": self.eos, "build_info": "b0-emulator", "is_sleeping": False,
        })

    async def models(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        return web.json_response({"object": "list", "data": [{"id": self.alias, "object": "model",
                                                              "owned_by": "llamacpp"}]})

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    # the server's chat path ------------------------------------------------------------------
    def render(self, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """The prompt llama.cpp would build for a chat body, and the messages as the template saw them;
        raises ``Rejected`` with the server's status and message."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise Rejected("'messages' is required" if messages is None else "Expected 'messages' to be an array")
        for message in messages:
            role = message.get("role")
            if role != "assistant" and "content" not in message:
                raise Rejected("All non-assistant messages must contain 'content'")
            if role == "assistant" and "content" not in message and "tool_calls" not in message:
                raise Rejected("Assistant message must contain either 'content' or 'tool_calls'!")
        kwargs = body.get("chat_template_kwargs") or {}
        thinking = bool(kwargs.get("enable_thinking", self.enable_thinking))
        generation = bool(body.get("add_generation_prompt", True))
        continuing = bool(body.get("continue_final_message", False))
        if not continuing and self.prefill_assistant and messages and messages[-1].get("role") == "assistant":
            if len(messages) >= 2 and messages[-2].get("role") == "assistant":
                raise Rejected("Cannot have 2 or more assistant messages at the end of the list.")
            continuing, generation = True, False
        if continuing and generation:
            raise Rejected("Cannot set both add_generation_prompt and continue_final_message to true.")
        if continuing and messages and messages[-1].get("tool_calls"):
            raise Rejected("Cannot continue an assistant message that contains tool calls.")
        if continuing and thinking:
            raise Rejected("Assistant response prefill is incompatible with enable_thinking.")
        shown = self._normalized(messages)
        tools = body.get("tools") or None
        if not continuing:
            return self._apply(shown, tools, generation, thinking), shown
        last = shown[-1]
        before = self._apply(shown[:-1], tools, False, thinking)
        opened = self._apply(shown[:-1], tools, True, thinking)
        common = len(_common_prefix(before, opened))
        return before + opened[common:] + str(last.get("content") or ""), shown

    def _apply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, generation: bool,
               thinking: bool) -> str:
        try:
            return self._compiled.render(messages=messages, tools=tools, add_generation_prompt=generation,
                                         bos_token=self.bos, eos_token=self.eos, enable_thinking=thinking)
        except TemplateError as exc:
            if self.template_error_status == 400:  # the pinned build's words, multi-line as it sends them
                raise Rejected("Unable to generate parser for this template. Automatic parser generation failed: \n"
                               "------------\nWhile executing CallExpression at line 1 in source:\n"
                               "...{{ raise_exception(...) }}\n           ^\n"
                               f"Error: Jinja Exception: {exc.message}") from None
            raise Rejected(f"Jinja Exception: {exc.message}", 500, "server_error") from None

    def _normalized(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = [dict(m) for m in messages]
        for message in out:
            if message.get("tool_calls"):
                message.setdefault("content", "")
                message["tool_calls"] = [_object_arguments(c) for c in message["tool_calls"]]
            if message.get("content") is None and message.get("role") != "assistant":
                message["content"] = ""
        if not self.supports_system and out and out[0].get("role") == "system":
            first = out.pop(0)
            if out:
                out[0]["content"] = f"{first.get('content') or ''}\n{out[0].get('content') or ''}"
        return out

    def _renders_system(self) -> bool:
        try:
            return "probe-system" in self._compiled.render(
                messages=[{"role": "system", "content": "probe-system"}, {"role": "user", "content": "u"}],
                add_generation_prompt=True, bos_token="", eos_token="")
        except TemplateError:
            return False

    # the model -------------------------------------------------------------------------------
    def respond(self, body: dict[str, Any], prompt: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Decided from the prompt: a new turn is the oracle's answer, an open assistant message is continued."""
        opener = self._generation_prompt(messages)
        content: str | None
        calls: list[dict[str, Any]] = []
        if opener and prompt.endswith(opener):
            try:
                decision = decide(list(body.get("messages") or []), list(body.get("tools") or []))
            except UnreadableInput as exc:
                raise Rejected(f"the emulated model cannot read this request: {exc.message}") from None
            content = decision.text
            if decision.call is not None:
                name, args = decision.call
                calls = [{"id": f"call_{len(self.exchanges)}", "type": "function",
                          "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]
        else:
            opened = prompt[prompt.rfind(opener) + len(opener):] if opener and opener in prompt else prompt[-400:]
            content = continuation({"role": "assistant", "content": opened})
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        out_tokens = max(1, len(content or "") // 4) + 20 * len(calls)
        return {
            "id": f"chatcmpl-emu-{len(self.exchanges)}", "object": "chat.completion", "created": 0,
            "model": str(body.get("model") or self.alias), "system_fingerprint": "b0-emulator",
            "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": message}],
            "usage": {"prompt_tokens": max(1, len(prompt) // 4), "completion_tokens": out_tokens,
                      "total_tokens": max(1, len(prompt) // 4) + out_tokens},
        }

    def _generation_prompt(self, messages: list[dict[str, Any]]) -> str:
        """What the template adds for ``add_generation_prompt`` (llama.cpp: the difference of two renderings)."""
        probe = [m for m in messages if m.get("role") == "user"][:1] or [{"role": "user", "content": "?"}]
        try:
            without = self._compiled.render(messages=probe, add_generation_prompt=False, bos_token=self.bos,
                                            eos_token=self.eos)
            with_it = self._compiled.render(messages=probe, add_generation_prompt=True, bos_token=self.bos,
                                            eos_token=self.eos)
        except TemplateError:
            return ""
        return with_it[len(_common_prefix(without, with_it)):]


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _object_arguments(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    args = function.get("arguments")
    if isinstance(args, str):
        try:
            function["arguments"] = json.loads(args)
        except json.JSONDecodeError:
            raise Rejected("Failed to parse tool call arguments as JSON", 500, "server_error") from None
    return {**call, "function": function}


def _error(exc: Rejected) -> web.Response:
    return web.json_response({"error": {"code": exc.status, "message": exc.message, "type": exc.kind}},
                             status=exc.status)
