"""View transforms of the mapping: GUI projection (P-13), tool result preview (P-14), pairing (P-15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._errors import ProjectionError
from ._messages import RawMessage
from ._projection_types import ProjectionSource
from ._text import utf16_len, utf16_truncate

_IMAGE_PARTS = {"image_url", "image", "input_image"}


def gui_projection(messages: list[RawMessage]) -> list[RawMessage]:
    """Keep only the most recent image part of the view; older ones become a text marker (P-13).

    Returns new message values; raw messages are never modified (P-1).
    """
    last: tuple[int, int] | None = None
    for pos, msg in enumerate(messages):
        if isinstance(msg.content, list):
            for part_pos, part in enumerate(msg.content):
                if part.get("type") in _IMAGE_PARTS:
                    last = (pos, part_pos)
    if last is None:
        return messages
    out = []
    for pos, msg in enumerate(messages):
        if not isinstance(msg.content, list) or not any(p.get("type") in _IMAGE_PARTS for p in msg.content):
            out.append(msg)
            continue
        parts: list[dict[str, Any]] = []
        for part_pos, part in enumerate(msg.content):
            if part.get("type") in _IMAGE_PARTS and (pos, part_pos) != last:
                parts.append({"type": "text", "text": f"[screenshot omitted: message #{msg.index}]"})
            else:
                parts.append(part)
        out.append(msg.model_copy(update={"content": parts}))
    return out


def tool_result_preview(msg: RawMessage, limit: int, has_windows: bool) -> Any:
    """A tool result longer than ``limit`` UTF-16 units shows its head plus a marker (P-14)."""
    text = msg.content if isinstance(msg.content, str) else None
    if text is None:
        return msg.content
    total = utf16_len(text)
    if total <= limit:
        return text
    if has_windows:
        how = (f'read it in full with context_window_read {{"windowId": "{msg.window_id}", '
               f'"afterIndex": {msg.index - 1}, "limit": 1}}')
    else:
        how = "the host keeps it in full"
    marker = (f"\n[tool result preview: first {limit} of {total} UTF-16 units of raw message #{msg.index}; "
              f"{how}]")
    return utf16_truncate(text, limit) + marker


def _name(source: ProjectionSource) -> str:
    return ", ".join(source.message_ids) or source.type


def validate_pairing(messages: Sequence[dict[str, Any]], sources: Sequence[ProjectionSource]) -> None:
    """Every tool call has its results right after it and every result its call (P-15).

    A violation is a host defect: raise, never repair (no invented or dropped messages).
    """
    pending: list[str] = []
    opener = ""
    for msg, source in zip(messages, sources, strict=True):
        if msg["role"] == "tool":
            call_id = msg.get("tool_call_id")
            if call_id not in pending:
                raise ProjectionError(
                    f"tool pairing broken: result {_name(source)} answers call {call_id!r}, "
                    "which has no open call before it in the view"
                )
            pending.remove(call_id)
            continue
        if pending:
            raise ProjectionError(
                f"tool pairing broken: call(s) {', '.join(pending)} of message {opener} have no result "
                f"before message {_name(source)}"
            )
        if msg["role"] == "assistant" and msg.get("tool_calls"):
            pending = [c["id"] for c in msg["tool_calls"]]
            opener = _name(source)
    if pending:
        raise ProjectionError(
            f"tool pairing broken: call(s) {', '.join(pending)} of message {opener} have no result in the view"
        )
