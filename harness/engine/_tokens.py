"""Token counts with litellm's counter (offline tiktoken): capacity (E-14) and request segments (X-51)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from harness.models import ensure_litellm
from protocols import ProjectionSource
from protocols._mapping import segment_of

SEGMENTS = ("system", "header", "state", "fold", "history", "tools")


def _counter_model(model: str) -> str:
    # scripted and unknown local models use litellm's default tokenizer
    return "gpt-4o" if model.startswith("scripted/") else model


def count_messages(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    litellm, _ = ensure_litellm()
    return int(litellm.token_counter(model=_counter_model(model), messages=messages, tools=tools or None))


@lru_cache(maxsize=16384)
def _count_one(model: str, message_json: str) -> int:
    return count_messages(model, [json.loads(message_json)])


@lru_cache(maxsize=64)
def _count_tools(model: str, tools_json: str) -> int:
    return count_messages(model, [], json.loads(tools_json))


def segment_tokens(
    model: str, messages: list[dict[str, Any]], sources: list[ProjectionSource], tools: list[dict[str, Any]]
) -> dict[str, int]:
    """Tokens of each request segment: system, header, state, fold, history, tools."""
    out = dict.fromkeys(SEGMENTS, 0)
    for message, source in zip(messages, sources, strict=True):
        # history repeats from step to step: each message is counted once
        out[segment_of(source)] += _count_one(model, json.dumps(message, sort_keys=True, ensure_ascii=False))
    if tools:
        out["tools"] = _count_tools(model, json.dumps(tools, sort_keys=True, ensure_ascii=False))
    return out
