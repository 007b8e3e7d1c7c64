"""What litellm's model catalogue knows about a model, for the placement preflight.

Both helpers answer ``None`` when the model is not in the (offline) catalogue: unknown is not no.
"""

from __future__ import annotations

from typing import Any

from ._setup import ensure_litellm


def _info(model: str) -> dict[str, Any] | None:
    litellm, _ = ensure_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises plain Exception for unmapped models
        return None
    return dict(info)


def supports_assistant_prefill(model: str) -> bool | None:
    """Whether a trailing assistant message is a prefill the provider accepts (placement A)."""
    info = _info(model)
    value = None if info is None else info.get("supports_assistant_prefill")
    return value if isinstance(value, bool) else None


def model_capacity(model: str) -> int | None:
    """Maximum input tokens (context window) of the model, when known."""
    info = _info(model)
    if info is None:
        return None
    for key in ("max_input_tokens", "max_tokens"):
        value = info.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def supports_reasoning(model: str) -> bool:
    """Whether litellm's catalogue marks the model as reasoning (``supports_reasoning``; unknown: False)."""
    info = _info(model)
    return bool(info and info.get("supports_reasoning"))
