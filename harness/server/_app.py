"""The OpenAI-compatible scripted-model HTTP app (X-64): chat completions with injectable latency
and faults, plus /v1/models, /health and /stats (requests served, faults injected). Replies stop at
the request's ``max_tokens`` (finish_reason ``length``), as a real provider's do."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections import Counter
from typing import Any

from aiohttp import web

from harness.models import ModelCallError
from harness.models._scripted_call import (
    ResolveModel,
    ScriptedModelLike,
    cap_reply,
    count_tokens,
    finish_reason,
    run_scripted,
    scripted_name,
)

from ._config import FaultKind, ServerConfig

log = logging.getLogger(__name__)
_MALFORMED = '{"id": "chatcmpl-malformed", "object": "chat.completion", "choices": [{"index": 0, "mess'


class ScriptedApp:
    """State and handlers of one server. All counters live on the server's event loop thread."""

    def __init__(self, config: ServerConfig, resolve_model: ResolveModel) -> None:
        self.config = config
        self.resolve_model = resolve_model
        self.default_model: ScriptedModelLike = resolve_model(config.model)  # KeyError: unknown name
        self.requests = 0
        self.completed = 0
        self.rejected = 0
        self.errors = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.faults: Counter[str] = Counter()
        self.models: Counter[str] = Counter()

    def build(self) -> web.Application:
        app = web.Application()
        for prefix in ("", "/v1"):
            app.router.add_post(f"{prefix}/chat/completions", self.chat)
            app.router.add_get(f"{prefix}/models", self.list_models)
            app.router.add_get(f"{prefix}/health", self.health)
            app.router.add_get(f"{prefix}/stats", self.stats_handler)
        return app

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "completed": self.completed,
            "rejected": self.rejected,
            "errors": self.errors,
            "faults": dict(self.faults),
            "models": dict(self.models),
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
        }

    async def stats_handler(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def list_models(self, request: web.Request) -> web.Response:
        name = self.config.model
        return web.json_response(
            {"object": "list", "data": [{"id": name, "object": "model", "created": 0, "owned_by": "scripted"}]}
        )

    async def chat(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1
        number = self.requests
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            fault = self.config.fault_for(number)
            if fault is not None:
                self.faults[fault] += 1
                return await self._fault(request, fault)
            if self.config.latency_ms:
                await asyncio.sleep(self.config.latency_ms / 1000)
            return await self._complete(request, number)
        finally:
            self.in_flight -= 1

    async def _fault(self, request: web.Request, fault: FaultKind) -> web.StreamResponse:
        if fault == "429":
            return _error(429, "rate limit reached (injected)", "rate_limit_error",
                          headers={"Retry-After": _seconds(self.config.retry_after_s)})
        if fault == "500":
            return _error(500, "internal server error (injected)", "server_error")
        if fault == "timeout":
            # Longer than any sane client timeout, but bounded; cancelled when the client hangs up.
            await asyncio.sleep(self.config.timeout_fault_s)
            return _error(504, "timed out (injected)", "server_error")
        if fault == "drop":
            if request.transport is not None:
                request.transport.close()  # no status line, no body
            return web.Response(status=500)
        if fault == "context":
            return await self._context_refusal(request)
        return web.Response(status=200, text=_MALFORMED, content_type="application/json")

    async def _context_refusal(self, request: web.Request) -> web.Response:
        """llama.cpp's answer to a prompt longer than a slot's context, byte for byte in shape."""
        try:
            body = await request.json()
            prompt_tokens, _ = count_tokens(body.get("messages") or [], body.get("tools") or [], "", [])
        except Exception:  # the refusal is the point; a body it cannot count still gets one
            prompt_tokens = 1
        n_ctx = self.config.context_window_tokens or max(1, prompt_tokens // 2)
        self.rejected += 1
        error = {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens, "n_ctx": n_ctx,
                 "message": f"request ({prompt_tokens} tokens) exceeds the available context size ({n_ctx} tokens), "
                            "try increasing it"}
        return web.json_response({"error": error}, status=400)

    async def _complete(self, request: web.Request, number: int) -> web.Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return self._reject("request body is not valid JSON")
        if not isinstance(body, dict):
            return self._reject("request body must be a JSON object")
        messages = body.get("messages")
        tools = body.get("tools") or []
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            return self._reject("'messages' must be a non-empty list of message objects")
        if not isinstance(tools, list):
            return self._reject("'tools' must be a list")
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int)
                                       or max_tokens < 1):
            return self._reject("'max_tokens' must be a positive integer")
        if self.config.reject_trailing_assistant and messages[-1].get("role") == "assistant":
            return self._reject(
                "This model does not support assistant message prefill. "
                "The conversation must end with a user message."
            )
        name, model = self._model_for(body.get("model"))
        try:
            content, calls = await run_scripted(model, messages, tools)
        except ModelCallError as exc:  # the scripted model cannot read this input: the client's set-up
            return self._reject(exc.message, code=exc.kind)
        except Exception as exc:  # a defect in the scripted model: say so, keep serving
            self.errors += 1
            log.exception("scripted model %s failed", name)
            return _error(500, f"scripted model {name!r} raised {type(exc).__name__}: {exc}", "server_error")
        content, calls, truncated = cap_reply(content, calls, max_tokens)  # stop at the cap, as a real one does
        prompt_tokens, completion_tokens = count_tokens(messages, tools, content, calls)
        if self.config.usage_scale != 1.0:  # another tokenizer / template: it counts differently
            prompt_tokens = max(1, math.ceil(prompt_tokens * self.config.usage_scale))
            completion_tokens = math.ceil(completion_tokens * self.config.usage_scale)
            if isinstance(max_tokens, int):
                completion_tokens = min(completion_tokens, max_tokens)
        limit = self.config.context_window_tokens
        if limit is not None and prompt_tokens > limit:
            return self._reject(
                f"This model's maximum context length is {limit} tokens. However, your messages "
                f"resulted in {prompt_tokens} tokens. Please reduce the length of the messages.",
                code="context_length_exceeded",
            )
        self.completed += 1
        self.models[name] += 1
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ]
        return web.json_response({
            "id": f"chatcmpl-scripted-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [{
                "index": 0, "message": message, "logprobs": None,
                "finish_reason": finish_reason(calls, truncated),
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        })

    def _model_for(self, requested: Any) -> tuple[str, ScriptedModelLike]:
        """The request's ``model`` when it names a scripted model, else the server's ``--model``."""
        if isinstance(requested, str) and requested:
            name = scripted_name(requested)
            if name != self.config.model:
                try:
                    return name, self.resolve_model(name)
                except KeyError:
                    pass
        return self.config.model, self.default_model

    def _reject(self, message: str, code: str | None = None) -> web.Response:
        self.rejected += 1
        return _error(400, message, "invalid_request_error", code=code)


def _error(
    status: int, message: str, kind: str, *, code: str | None = None, headers: dict[str, str] | None = None
) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
