"""Token counts with litellm's counter (offline tiktoken): capacity (E-14) and request segments (X-51)."""

from __future__ import annotations

from typing import Any

from protocols import ProjectionSource
from protocols._mapping import segment_of

from ..models import ensure_litellm

SEGMENTS = ("system", "header", "state", "fold", "history", "tools")


def _counter_model(model: str) -> str:
    # scripted and unknown local models use litellm's default tokenizer
    return "gpt-4o" if model.startswith("scripted/") else model


def count_messages(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    litellm, _ = ensure_litellm()
    return int(litellm.token_counter(model=_counter_model(model), messages=messages, tools=tools or None))


def count_text(model: str, text: str) -> int:
    litellm, _ = ensure_litellm()
    return int(litellm.token_counter(model=_counter_model(model), text=text)) if text else 0


def segment_tokens(
    model: str, messages: list[dict[str, Any]], sources: list[ProjectionSource], tools: list[dict[str, Any]]
) -> dict[str, int]:
    """Tokens of each request segment: system, header, state, fold, history, tools."""
    out = dict.fromkeys(SEGMENTS, 0)
    for message, source in zip(messages, sources, strict=True):
        out[segment_of(source)] += count_messages(model, [message])
    if tools:
        out["tools"] = count_messages(model, [], tools)
    return out
