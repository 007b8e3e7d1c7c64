"""Token counts with litellm's counter (offline tiktoken): capacity (E-14) and request segments (X-51).

Each message is counted once per model and content (``harness.models`` caches the counts): a
session's history repeats from step to step, and the budget's reservation (X-21), the segments and
the scripted provider's usage read the same counts (Q-2).
"""

from __future__ import annotations

from typing import Any

from harness.models import message_tokens, prompt_tokens, tools_tokens
from protocols import ProjectionSource
from protocols._mapping import segment_of

from ._encode import _Piece

SEGMENTS = ("system", "header", "state", "fold", "history", "tools")


def _counter_model(model: str) -> str:
    # scripted and unknown local models use litellm's default tokenizer
    return "gpt-4o" if model.startswith("scripted/") else model


def count_messages(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                   tools_json: str | None = None) -> int:
    """litellm's ``token_counter`` of the request (exactly; from the cached per-message counts).
    ``tools_json``: ``json.dumps(tools, ensure_ascii=False)``, when the caller has it."""
    return prompt_tokens(_counter_model(model), messages, tools, tools_json)


def segment_tokens(
    model: str, messages: list[dict[str, Any]], sources: list[ProjectionSource], tools: list[dict[str, Any]],
    tools_json: str | None = None, pieces: list[_Piece] | None = None,
) -> dict[str, int]:
    """Tokens of each request segment: system, header, state, fold, history, tools. Each part is
    counted as a request of its own (so their sum slightly over-counts the whole: a worst case).
    ``tools_json``: ``json.dumps(tools, ensure_ascii=False)``, when the caller has it; ``pieces``: the
    messages' pieces (``message_pieces``), which keep each message's count (equal pieces, equal messages)."""
    counter = _counter_model(model)
    out = dict.fromkeys(SEGMENTS, 0)
    if pieces is None:
        for message, source in zip(messages, sources, strict=True):
            out[segment_of(source)] += message_tokens(counter, message)
    else:
        for message, source, piece in zip(messages, sources, pieces, strict=True):
            count = piece.tokens.get(counter)
            if count is None:
                count = piece.tokens[counter] = message_tokens(counter, message)
            out[segment_of(source)] += count
    if tools:
        out["tools"] = tools_tokens(counter, tools, tools_json)
    return out
