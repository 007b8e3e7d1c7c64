"""Error classification and backoff (E-7), without the network."""

from __future__ import annotations

import random

import httpx
import pytest

from harness.models import ensure_litellm
from harness.models._retry import backoff_seconds, classify, retry_after_seconds


def _response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("POST", "http://127.0.0.1/v1"))


def _exceptions() -> object:
    litellm, _ = ensure_litellm()
    return litellm


def test_e7_context_window_before_bad_request() -> None:
    litellm = _exceptions()
    exc = litellm.ContextWindowExceededError(message="too long", model="m", llm_provider="openai")  # type: ignore[attr-defined]
    assert classify(exc, litellm).decision == "context_window"
    bad = litellm.BadRequestError(message="must end with a user message", model="m", llm_provider="anthropic")  # type: ignore[attr-defined]
    assert classify(bad, litellm).decision == "provider_rejected"


def test_e7_timeout_is_retried_although_not_a_connection_error() -> None:
    litellm = _exceptions()
    exc = litellm.Timeout(message="slow", model="m", llm_provider="openai")  # type: ignore[attr-defined]
    assert not isinstance(exc, litellm.APIConnectionError)  # type: ignore[attr-defined]
    assert classify(exc, litellm).decision == "retry"


def test_e7_auth_error_is_infrastructure_without_retry() -> None:
    litellm = _exceptions()
    exc = litellm.AuthenticationError(message="bad key", model="m", llm_provider="openai")  # type: ignore[attr-defined]
    assert classify(exc, litellm).decision == "infrastructure"


def test_e7_host_defect_is_not_swallowed() -> None:
    assert classify(TypeError("bug"), _exceptions()).decision == "defect"


def test_e7_retry_after_from_rate_limit_headers() -> None:
    litellm = _exceptions()
    exc = litellm.RateLimitError(  # type: ignore[attr-defined]
        message="slow down", model="m", llm_provider="openai", response=_response(429, {"Retry-After": "7"})
    )
    verdict = classify(exc, litellm)
    assert verdict.decision == "retry" and verdict.retry_after_s == 7.0


class _WithHeaders(Exception):
    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__("x")
        self.litellm_response_headers = headers


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after": "2"}, 2.0), ({"Retry-After": "0.5"}, 0.5), ({"retry-after-ms": "1500"}, 1.5),
    ({"retry-after": "soon"}, None), ({}, None),
])
def test_e7_retry_after_parsing(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(_WithHeaders(headers)) == seconds


def test_e7_backoff_exponential_with_jitter_and_cap() -> None:
    rng = random.Random(1)
    waits = [backoff_seconds(n, 0.5, 3.0, None, rng) for n in range(1, 7)]
    for n, wait in enumerate(waits, start=1):
        ceiling = min(3.0, 0.5 * 2 ** (n - 1))
        assert ceiling / 2 <= wait <= ceiling
    assert waits[-1] <= 3.0


def test_e7_backoff_never_shorter_than_retry_after() -> None:
    rng = random.Random(2)
    assert all(backoff_seconds(1, 0.5, 1.0, 4.0, rng) >= 4.0 for _ in range(20))
