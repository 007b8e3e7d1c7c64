"""What kind of trouble one failed model call attempt was, from what the adapter recorded of it
(``RetryRecord``: litellm's error class, HTTP status, message), so reports can say "12 rate limits,
3 timeouts" instead of "15 retries".

litellm folds several transport failures into ``InternalServerError`` with status 500: a dropped
connection reads "Connection error.", a body that is not JSON carries the JSON decoder's message.
Those are told apart by the message; everything else by class, then status. A chat template's refusal
(``_context.is_template_refusal``: llama.cpp answers it with HTTP 500) is ``rejected``, like a 4xx: the same
messages are refused again, so it is never retried.
"""

from __future__ import annotations

import re

from ._context import is_template_refusal

_CLASS_KINDS = {
    "RateLimitError": "rate_limit",
    "Timeout": "timeout",
    "APITimeoutError": "timeout",
    "APIConnectionError": "connection",
    "APIResponseValidationError": "malformed",
    "ContextWindowExceededError": "context_window",
    "BadRequestError": "rejected",
    "UnprocessableEntityError": "rejected",
}
_CONNECTION = re.compile(r"connection (error|reset|refused|aborted)|server disconnected|remote end closed"
                         r"|connecterror|readerror", re.IGNORECASE)
_MALFORMED = re.compile(r"unterminated string|expecting (value|property name|',' delimiter)|extra data"
                        r"|jsondecodeerror|invalid json|not valid json|validation error|invalid control character",
                        re.IGNORECASE)
_TIMEOUT = re.compile(r"timed out|timeout", re.IGNORECASE)


def infra_kind(error_class: str | None, status_code: int | None, message: str | None = "") -> str:
    """One of ``harness.results.INFRA_KINDS`` for a failed attempt."""
    text = message or ""
    kind = _CLASS_KINDS.get(error_class or "")
    if kind is not None:
        return kind
    if is_template_refusal(text):
        return "rejected"
    if _CONNECTION.search(text):
        return "connection"
    if _MALFORMED.search(text):
        return "malformed"
    if status_code == 429:
        return "rate_limit"
    if status_code == 408 or _TIMEOUT.search(text):
        return "timeout"
    if status_code is not None and status_code >= 500:
        return "server_error"
    if error_class in ("InternalServerError", "ServiceUnavailableError", "BadGatewayError"):
        return "server_error"
    if status_code is not None and 400 <= status_code < 500:
        return "rejected"
    return "other"
