"""Classification of litellm errors and the backoff schedule (E-7).

litellm's own retries stay off (``num_retries=0``) so every attempt is seen and recorded here.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass
from typing import Any, Literal

from ._context import is_context_refusal, is_template_refusal

Decision = Literal["retry", "infrastructure", "provider_rejected", "context_window", "defect"]


@dataclass(frozen=True)
class Classified:
    decision: Decision
    error_class: str
    status_code: int | None
    message: str
    retry_after_s: float | None


def classify(exc: BaseException, litellm: Any) -> Classified:
    """What to do about one failed attempt. Order matters: subclasses before their bases."""
    exceptions = litellm.exceptions
    status = _status_code(exc)
    decision: Decision
    if isinstance(exc, exceptions.ContextWindowExceededError):
        decision = "context_window"
    elif isinstance(exc, exceptions.APIError | exceptions.BadRequestError) and is_context_refusal(str(exc)):
        decision = "context_window"  # llama.cpp's exceed_context_size_error and kin: a set-up error, never retried
    elif isinstance(exc, exceptions.BadRequestError | exceptions.UnprocessableEntityError):
        decision = "provider_rejected"
    elif is_template_refusal(str(exc)):
        decision = "provider_rejected"  # a chat template that raises (llama.cpp: HTTP 500) raises again: never retried
    elif _missing_credentials(exc):
        decision = "infrastructure"  # litellm reports a missing API key as a 500; retrying cannot help
    elif isinstance(
        exc,
        exceptions.RateLimitError
        | exceptions.InternalServerError
        | exceptions.ServiceUnavailableError
        | exceptions.APIConnectionError
        | exceptions.Timeout  # not an APIConnectionError subclass
        | exceptions.APIResponseValidationError,
    ):
        decision = "retry"
    elif isinstance(
        exc, exceptions.AuthenticationError | exceptions.PermissionDeniedError | exceptions.NotFoundError
    ):
        decision = "infrastructure"  # the harness's credentials or endpoint: retrying cannot help
    elif isinstance(exc, exceptions.APIError):
        # litellm's catch-all (e.g. an unparseable body): transient unless it carries a 4xx.
        decision = "provider_rejected" if status is not None and 400 <= status < 500 else "retry"
    else:
        decision = "defect"
    return Classified(decision, type(exc).__name__, status, _message(exc), retry_after_seconds(exc))


def _missing_credentials(exc: BaseException) -> bool:
    """No API key at all: the OpenAI client refuses before sending, and litellm wraps that as a 500."""
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text


def retry_after_seconds(exc: BaseException) -> float | None:
    """``Retry-After`` (seconds or HTTP date) or ``retry-after-ms`` from the error's response headers."""
    headers = _headers(exc)
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_seconds(
    attempt: int, base_s: float, max_s: float, retry_after_s: float | None, rng: random.Random
) -> float:
    """Wait before attempt ``attempt + 1``: Retry-After when the provider gave one (at least that
    long, plus a little jitter so concurrent callers spread), else exponential with equal jitter."""
    if retry_after_s is not None:
        return retry_after_s + rng.uniform(0, min(base_s, 0.25))
    ceiling = min(max_s, base_s * (2 ** (attempt - 1)))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def _headers(exc: BaseException) -> Any:
    for source in (getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)):
        if source:
            return source
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)


def _status_code(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _message(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return str(message)[:2000]
