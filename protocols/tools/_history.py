"""``context_history_list``: the active window's uncompressed history as interaction groups (P-21)."""

from __future__ import annotations

from typing import Any

from .._groups import Group, interaction_groups
from .._messages import RawMessage
from .._state import Fold
from .._text import utf16_len, utf16_truncate
from ._args import HistoryListArgs
from ._context import ToolContext
from ._results import success

PREVIEW_UNITS = 200


def preview(text: str) -> str:
    """Whitespace collapsed, at most 200 UTF-16 units (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    if utf16_len(flat) <= PREVIEW_UNITS:
        return flat
    return utf16_truncate(flat, PREVIEW_UNITS - 1) + "…"


def _message_text(msg: RawMessage) -> str:
    parts = [msg.text()]
    for call in msg.tool_calls or ():
        parts.append(f"{call.name}({call.arguments})")
    return " ".join(p for p in parts if p)


def _group_item(group: Group, fold_limit: int | None) -> dict[str, Any]:
    """One group; ``foldable`` is exactly whether ``context_fold_create`` accepts this group as a range."""
    reason = group.reason or ("fold_limit_exceeded" if fold_limit is not None else None)
    return {
        "firstIndex": group.first_index,
        "lastIndex": group.last_index,
        "messageIds": [m.id for m in group.messages],
        "kinds": [m.kind_path for m in group.messages],
        "preview": preview(" | ".join(_message_text(m) for m in group.messages)),
        "foldable": reason is None,
        "reason": reason,
    }


def _fold_item(fold_id: str, fold: Fold) -> dict[str, Any]:
    return {
        "foldId": fold_id,
        "firstIndex": fold.from_index,
        "lastIndex": fold.through_index,
        "messageIds": list(fold.message_ids),
        "kinds": ["assistant/context_fold"],
        "preview": preview(fold.summary),
        "foldable": False,
        "reason": "already_folded",
    }


def uncompressed_groups(ctx: ToolContext, window_id: str) -> list[Group]:
    return interaction_groups(ctx.uncompressed_history(window_id))


def history_items(ctx: ToolContext) -> list[dict[str, Any]]:
    """Every item of the active window's uncompressed history; an uncompressed fold is one item.

    A run of consecutive items that are all ``foldable`` is exactly a range ``context_fold_create``
    accepts (tests/protocols/tools/test_fold_agreement.py)."""
    active = ctx.active_window()
    limit = ctx.fold_limit_reached()
    covered = ctx.covered_through(active)
    folds = sorted(
        ((fid, f) for fid, f in ctx.folds().items() if f.window_id == active and f.from_index > covered),
        key=lambda pair: pair[1].from_index,
    )
    items: list[dict[str, Any]] = []
    shown: set[str] = set()
    for group in uncompressed_groups(ctx, active):
        inside = next(((fid, f) for fid, f in folds
                       if f.from_index <= group.first_index <= f.through_index), None)
        if inside is None:
            items.append(_group_item(group, limit))
        elif inside[0] not in shown:
            shown.add(inside[0])
            items.append(_fold_item(*inside))
    return items


def history_list(ctx: ToolContext, args: HistoryListArgs) -> dict[str, Any]:
    items = [item for item in history_items(ctx) if item["firstIndex"] > args.after_index]
    page = items[: args.limit]
    more = len(items) > args.limit
    return success(
        windowId=ctx.active_window(),
        coveredThrough=ctx.covered_through(ctx.active_window()),
        items=page,
        nextAfterIndex=page[-1]["lastIndex"] if more else None,
    )
