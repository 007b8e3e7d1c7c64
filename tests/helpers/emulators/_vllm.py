"""A loopback emulator of vLLM's rendering endpoints: ``GET /version``, ``POST /tokenize`` with ``messages`` and
``POST /detokenize`` (vllm/entrypoints/serve/tokenize/protocol.py: ``TokenizeChatRequest`` with
``add_generation_prompt`` true and ``continue_final_message`` false by default, as a chat request;
``TokenizeResponse`` {count, max_model_len, tokens}; ``DetokenizeResponse`` {prompt}).

It renders a real chat template with jinja2 as vLLM's chat path does (the template sees every message; a
trailing assistant message is a finished message unless ``continue_final_message``), and a template's
exception is HTTP 400 with vLLM's error body. Its tokenizer is a stand-in (UTF-8 bytes), enough for a prompt
to go through tokenize and come back from detokenize unchanged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from jinja2 import TemplateError

from ._llamacpp import QWEN, TEMPLATE_TOKENS, _environment


@dataclass
class VllmEmulator:
    template: str = QWEN
    version: str = "0.16.0"
    counts: Counter[str] = field(default_factory=Counter)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/version", self.version_handler)
        app.router.add_post("/tokenize", self.tokenize)
        app.router.add_post("/detokenize", self.detokenize)
        return app

    async def version_handler(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        return web.json_response({"version": self.version})

    async def tokenize(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        body: dict[str, Any] = await request.json()
        if not isinstance(body.get("messages"), list):
            return _error("messages: Field required")
        continuing = bool(body.get("continue_final_message", False))
        generation = bool(body.get("add_generation_prompt", True))
        if continuing and generation:
            return _error("Cannot set both `continue_final_message` and `add_generation_prompt` to True.")
        bos, eos = TEMPLATE_TOKENS.get(self.template, ("", ""))
        try:
            prompt = _environment().from_string(self.template).render(
                messages=body["messages"], tools=body.get("tools"), add_generation_prompt=generation,
                bos_token=bos, eos_token=eos, **(body.get("chat_template_kwargs") or {}))
        except TemplateError as exc:
            return _error(str(exc.message))
        if continuing and body["messages"]:
            last = str(body["messages"][-1].get("content") or "")
            prompt = prompt[: prompt.rfind(last) + len(last)] if last in prompt else prompt
        tokens = list(prompt.encode("utf-8"))
        return web.json_response({"count": len(tokens), "max_model_len": 32768, "tokens": tokens})

    async def detokenize(self, request: web.Request) -> web.Response:
        self.counts[request.path] += 1
        body: dict[str, Any] = await request.json()
        return web.json_response({"prompt": bytes(body.get("tokens") or []).decode("utf-8", errors="replace")})


def _error(message: str) -> web.Response:
    return web.json_response({"object": "error", "message": message, "type": "BadRequestError", "param": None,
                              "code": 400}, status=400)
