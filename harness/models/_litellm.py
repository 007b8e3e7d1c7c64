"""The litellm adapter (E-4, E-5, E-7, E-11): any litellm model string, including ``scripted/<name>``."""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from functools import lru_cache
from typing import Any

from ._errors import ModelCallError
from ._local import PLACEHOLDER_KEY, is_loopback, needs_placeholder_key
from ._pricing import Prices, litellm_pricing, price_call
from ._reasoning import CLAUDE_THINKING_SAMPLING, claude_thinks, for_provider, reasoning_of, reasoning_tokens
from ._redact import redact, redact_owned, redacted_json_text, secrets_from_env
from ._retry import backoff_seconds, classify
from ._setup import ensure_litellm
from ._types import ModelOutput, ModelRequest, RetryRecord, ToolCallOut, Usage


class LiteLLMModel:
    """``ChatModel`` over ``litellm.acompletion``, with its own retry loop (litellm's is off).

    ``api_key_env`` names the environment variable holding the key; without it litellm reads the
    provider's usual variable. ``sleep`` and ``rng`` are injectable for tests.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key_env: str | None = None,
        prices: Prices | None = None,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        max_backoff_s: float = 20,
        *,
        max_retry_after_s: float = 120,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.api_base = api_base
        self.api_key_env = api_key_env
        self.prices = prices
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self._sleep = sleep
        self._rng = rng or random.Random()

    def __repr__(self) -> str:  # never shows a key: none is stored on the object
        return f"LiteLLMModel(model={self.model!r}, api_base={self.api_base!r})"

    def _api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ModelCallError("infrastructure", f"environment variable {self.api_key_env} is not set")
        return key

    def _params(self, request: ModelRequest, litellm: Any) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": for_provider(request.messages, _provider(litellm, self.model), self.model),
            "timeout": request.timeout_seconds,  # litellm's default is 6000 s
            "num_retries": 0,
            **request.extra,
        }
        if request.tools:
            params["tools"] = request.tools
            params["tool_choice"] = "auto"
            if _supports(litellm, self.model, "parallel_tool_calls"):
                params["parallel_tool_calls"] = False  # E-5: one tool call per step
        if request.max_output_tokens is not None:
            params["max_tokens"] = request.max_output_tokens
        params.update(sampling_params(request, litellm, self.model))
        if self.api_base is not None:
            params["api_base"] = self.api_base
        for name, value in litellm_pricing(self.prices).items():  # litellm's own pricing kwargs, never sent (E-11)
            params.setdefault(name, value)
        return params

    async def generate(self, request: ModelRequest) -> ModelOutput:
        litellm, capture = ensure_litellm()
        api_key = self._api_key()
        if api_key is None and needs_placeholder_key(self.model, self.api_base, litellm):
            api_key = PLACEHOLDER_KEY  # a local server takes any key; litellm insists on one
        secrets = secrets_from_env() | ({api_key} if api_key else set())
        params = self._params(request, litellm)
        if api_key is not None:
            params["api_key"] = api_key
        retries: list[RetryRecord] = []
        attempt = 0
        while True:
            attempt += 1
            call_id = f"harness-{uuid.uuid4().hex}"
            started = time.monotonic()
            try:
                response = await litellm.acompletion(**params, litellm_call_id=call_id)
            except Exception as exc:  # classified below; host defects re-raised
                capture.pop(call_id)
                own = raised_by_us(exc)
                if own is not None:  # e.g. a scripted model that cannot read its input: not retried
                    raise ModelCallError(own.kind, own.message, own.status_code, retries) from None
                verdict = classify(exc, litellm)
                if verdict.decision == "defect":
                    raise
                message = redact(verdict.message, secrets)
                if verdict.decision != "retry":
                    retries.append(RetryRecord(attempt=attempt, error_class=verdict.error_class,
                                               status_code=verdict.status_code, message=message))
                    raise ModelCallError(verdict.decision, message, verdict.status_code, retries) from None
                if attempt > self.max_retries:
                    retries.append(RetryRecord(attempt=attempt, error_class=verdict.error_class,
                                               status_code=verdict.status_code, message=message))
                    raise ModelCallError(
                        "infrastructure",
                        f"gave up after {attempt} attempts: {verdict.error_class}: {message}",
                        verdict.status_code,
                        retries,
                    ) from None
                retry_after = verdict.retry_after_s
                if retry_after is not None:
                    retry_after = min(retry_after, self.max_retry_after_s)
                wait = backoff_seconds(attempt, self.backoff_base_s, self.max_backoff_s, retry_after, self._rng)
                slept_from = time.monotonic()
                await self._sleep(wait)
                retries.append(RetryRecord(
                    attempt=attempt, error_class=verdict.error_class, status_code=verdict.status_code,
                    waited_ms=(time.monotonic() - slept_from) * 1000, message=message,
                ))
                continue
            latency_ms = (time.monotonic() - started) * 1000
            body = capture.pop_parts(call_id)
            sampling = {k: params[k] for k in SAMPLING if k in params}
            return self._output(response, litellm, latency_ms, retries, body, secrets, sampling)

    def _output(
        self,
        response: Any,
        litellm: Any,
        latency_ms: float,
        retries: list[RetryRecord],
        body: tuple[str, tuple[str, ...]] | None,
        secrets: set[str],
        sampling: dict[str, Any],
    ) -> ModelOutput:
        choice = response.choices[0]
        message = choice.message
        calls = [
            ToolCallOut(id=str(c.id), name=str(c.function.name), arguments=c.function.arguments or "")
            for c in (message.tool_calls or [])
        ]
        usage = usage_of(response)
        usd, known = price_call(self.model, usage, self.prices, litellm, local=is_loopback(self.api_base))
        return ModelOutput(
            content=message.content,
            tool_calls=calls,
            finish_reason=choice.finish_reason,
            usage=usage,
            usd=usd,
            price_known=known,
            latency_ms=latency_ms,
            retries=retries,
            provider_request_json=None if body is None else redacted_json_text(body[0], secrets, body[1]),
            raw_response=redact_owned(response.model_dump(mode="json"), secrets),
            reasoning=reasoning_of(message),
            sampling=sampling,
        )


def usage_of(response: Any) -> Usage:
    """Tokens from a litellm response; cached reads from OpenAI's or Anthropic's field."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if not cached:
        cached = getattr(usage, "cache_read_input_tokens", None)
    written = getattr(usage, "cache_creation_input_tokens", None)
    return Usage(
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        cached_input_tokens=int(cached or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        reasoning_tokens=reasoning_tokens(usage),
        cache_write_tokens=int(written) if isinstance(written, int | float) else 0,
    )


SAMPLING = ("temperature", "top_p", "seed")


def raised_by_us(exc: BaseException) -> ModelCallError | None:
    """The ``ModelCallError`` our own custom provider (``scripted/*``) raised inside litellm, which
    litellm re-raises wrapped in one of its own errors (the original is the wrapper's context)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ModelCallError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def sampling_params(request: ModelRequest, litellm: Any, model: str) -> dict[str, Any]:
    """The sampling parameters sent: those the request sets, less ``top_p`` / ``seed`` where litellm
    knows the provider does not take them, and less a temperature or ``top_p`` a Claude model refuses with
    thinking on (``CLAUDE_THINKING_SAMPLING``); the call then runs without, and the snapshot records what
    was sent."""
    out: dict[str, Any] = {}
    if request.temperature is not None:
        out["temperature"] = request.temperature
    for name in ("top_p", "seed"):
        value = getattr(request, name)
        if value is not None and _supports(litellm, model, name):
            out[name] = value
    if claude_thinks(_provider(litellm, model), model, request.extra):
        for name, (low, high) in CLAUDE_THINKING_SAMPLING.items():
            if name in out and not low <= out[name] <= high:
                del out[name]
    return out


@lru_cache(maxsize=256)
def _supports(litellm: Any, model: str, param: str) -> bool:
    """True unless litellm knows the provider does not take ``param`` (custom providers take all).
    Cached: the answer is litellm's static table for the model string, asked three times a call."""
    try:
        supported = litellm.get_supported_openai_params(model=model)
    except Exception:
        return True
    return supported is None or param in supported


@lru_cache(maxsize=256)
def _provider(litellm: Any, model: str) -> str | None:
    """litellm's provider of a model string (a parse of the string, asked twice a call): cached."""
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # a string litellm cannot place: its own error comes with the call
        return None
