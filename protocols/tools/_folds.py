"""Fold tools: create (P-23 … P-25), list (P-54), read (P-27)."""

from __future__ import annotations

from typing import Any

from .._messages import RawMessage
from .._state import Fold, fold_key
from .._text import canonical_json, utf16_len, utf16_slice
from ._args import FoldCreateArgs, FoldListArgs, FoldReadArgs
from ._context import ToolContext
from ._history import uncompressed_groups
from ._results import ToolRejected, Write, success

READ_SLICE_UNITS = 12000


def _bad_range(reason: str, message: str, args: FoldCreateArgs, **details: Any) -> ToolRejected:
    return ToolRejected("fold_range_invalid", message, reason=reason, fromIndex=args.from_index,
                        throughIndex=args.through_index, **details)


def _validated_range(ctx: ToolContext, window_id: str, args: FoldCreateArgs) -> list[RawMessage]:
    """The messages a fold over ``fromIndex..throughIndex`` would stand for, or a refusal.

    A range is counted in the active window's own messages (docs/design.md, "Folds and other windows"):
    messages of other windows whose indexes lie inside it are not part of the fold and do not stop it,
    as ``coveredThrough`` counts only its window's messages (P-8). Its ends must be group boundaries of
    that window's uncompressed history, as ``context_history_list`` lists it.
    """
    first, last = args.from_index, args.through_index
    if last > ctx.frozen.upper_bound:
        raise _bad_range("beyond_upper_bound", f"throughIndex {last} is beyond the upper bound "
                         f"{ctx.frozen.upper_bound} of this call's view; a call never folds itself", args)
    covered = ctx.covered_through(window_id)
    if first <= covered:
        raise _bad_range("crosses_prefix_boundary", f"fromIndex {first} is at or below coveredThrough "
                         f"{covered} of window {window_id!r}", args, coveredThrough=covered)
    groups = uncompressed_groups(ctx, window_id)
    starts = {g.first_index: pos for pos, g in enumerate(groups)}
    ends = {g.last_index: pos for pos, g in enumerate(groups)}
    if first not in starts or last not in ends:
        foreign = [i for i in dict.fromkeys((first, last))
                   if (m := ctx.store.message_at(ctx.session_id, i)) is not None and m.window_id != window_id]
        if foreign:
            raise _bad_range("not_in_window", f"index(es) {foreign} belong to another window than {window_id!r}; "
                             "a fold takes only the active window's groups", args, foreignIndexes=foreign)
        raise _bad_range("not_group_boundary", "fromIndex must be the first index and throughIndex the "
                         "last index of groups listed by context_history_list", args)
    for fold_id, fold in ctx.folds().items():
        if fold.window_id == window_id and first <= fold.through_index and last >= fold.from_index:
            raise _bad_range("overlap", f"the range overlaps fold {fold_id!r} "
                             f"({fold.from_index}–{fold.through_index})", args, foldId=fold_id)
    chosen = groups[starts[first] : ends[last] + 1]
    for group in chosen:
        if not group.foldable:
            raise _bad_range(str(group.reason), f"the group {group.first_index}–{group.last_index} is not "
                             f"foldable ({group.reason})", args)
    return [m for group in chosen for m in group.messages]


def _next_fold_id(existing: dict[str, Fold]) -> str:
    n = len(existing) + 1
    while f"f{n}" in existing:
        n += 1
    return f"f{n}"


def fold_create(ctx: ToolContext, args: FoldCreateArgs) -> Write:
    window_id = ctx.active_window()
    messages = _validated_range(ctx, window_id, args)
    existing = ctx.folds()
    limit = ctx.fold_limit_reached()
    if limit is not None:
        raise ToolRejected("fold_limit_exceeded", f"the session has {len(existing)} folds (compressed ones "
                           f"included); at most {limit} are allowed", limit=limit)
    fold_id = _next_fold_id(existing)
    fold = Fold(window_id=window_id, from_index=args.from_index, through_index=args.through_index,
                message_ids=[m.id for m in messages], summary=args.summary)
    return Write(
        success(foldId=fold_id, windowId=window_id, fromIndex=args.from_index,
                throughIndex=args.through_index, messageCount=len(messages), stateRevision=ctx.next_revision),
        {fold_key(fold_id): fold.wire()},
    )


def fold_list(ctx: ToolContext, args: FoldListArgs) -> dict[str, Any]:
    window_id = args.window_id or ctx.active_window()
    folds = sorted(((fid, f) for fid, f in ctx.folds().items() if f.window_id == window_id),
                   key=lambda pair: pair[1].from_index)
    if not folds and ctx.window(window_id) is None:
        raise ToolRejected("window_not_found", f"there is no window {window_id!r} in this session",
                           windowId=window_id)
    covered = ctx.covered_through(window_id)
    page = folds[args.offset : args.offset + args.limit]
    items = [
        {"foldId": fid, "windowId": f.window_id, "fromIndex": f.from_index, "throughIndex": f.through_index,
         "summary": f.summary, "compressed": f.through_index <= covered}
        for fid, f in page
    ]
    end = args.offset + args.limit
    return success(windowId=window_id, folds=items, nextOffset=end if end < len(folds) else None)


def fold_text(ctx: ToolContext, fold: Fold) -> str:
    """The fold's raw messages as one canonical JSON array (deterministic, P-20)."""
    messages = ctx.store.messages_by_ids(ctx.session_id, fold.message_ids)
    return canonical_json([m.wire() for m in messages])


def fold_read(ctx: ToolContext, args: FoldReadArgs) -> dict[str, Any]:
    fold = ctx.fold(args.fold_id)
    if fold is None:  # KV is per session: another session's fold id is simply unknown here
        raise ToolRejected("fold_not_found", f"there is no fold {args.fold_id!r}", foldId=args.fold_id)
    text = fold_text(ctx, fold)
    total = utf16_len(text)
    if args.cursor > total:
        raise ToolRejected("invalid_arguments", f"cursor: {args.cursor} is beyond totalLength {total}")
    if 0 < args.cursor < total and _is_low_surrogate(text, args.cursor):
        raise ToolRejected("invalid_arguments", f"cursor: {args.cursor} splits a surrogate pair; "
                           "use nextCursor from the previous read")
    piece, end = utf16_slice(text, args.cursor, READ_SLICE_UNITS)
    return success(foldId=args.fold_id, windowId=fold.window_id, cursor=args.cursor, text=piece,
                   nextCursor=end if end < total else None, totalLength=total)


def _is_low_surrogate(text: str, offset: int) -> bool:
    data = text.encode("utf-16-le")
    unit = int.from_bytes(data[2 * offset : 2 * offset + 2], "little")
    return 0xDC00 <= unit <= 0xDFFF
