"""The reused window tools (open, memory_set, complete, list, search, read, task_memory_set)."""

from __future__ import annotations

from typing import Any

from .._messages import RawMessage
from .._state import (
    ACTIVE_WINDOW,
    CURRENT_WINDOW_ENTRY,
    MAIN_WINDOW,
    TASK_MEMORY,
    CurrentWindowEntry,
    WindowRecord,
    window_key,
)
from .._text import utf16_len, utf16_truncate
from ._args import (
    MemorySetArgs,
    TaskMemorySetArgs,
    WindowCompleteArgs,
    WindowListArgs,
    WindowOpenArgs,
    WindowReadArgs,
    WindowSearchArgs,
)
from ._context import ToolContext
from ._results import ToolRejected, Write, success

SNIPPET_UNITS = 200


def _entry(ctx: ToolContext, window_id: str, from_window: str, handoff: str | None) -> dict[str, Any]:
    """``currentWindowEntry`` (v2, v3), written in the same transaction as the switch (P-72)."""
    return CurrentWindowEntry(
        window_id=window_id,
        from_window=from_window,
        entered_at_upper_bound=ctx.frozen.upper_bound,
        input=handoff,
        revision=ctx.next_revision,
    ).wire()


def _switch_changes(
    ctx: ToolContext, left: str, left_record: WindowRecord, target: str, target_record: WindowRecord,
    handoff: str | None,
) -> dict[str, Any]:
    changes: dict[str, Any] = {
        window_key(left): left_record.wire(),
        window_key(target): target_record.wire(),
        ACTIVE_WINDOW: target,
    }
    if ctx.protocol.requires_expected_window:
        changes[CURRENT_WINDOW_ENTRY] = _entry(ctx, target, left, handoff)
    return changes


def window_open(ctx: ToolContext, args: WindowOpenArgs) -> Write:
    active = ctx.active_window()
    target = args.window_id
    if target == active:
        raise ToolRejected("window_already_active", f"window {target!r} is already the active window",
                           windowId=target)
    existing = ctx.window(target)
    if args.resume:
        if existing is None:
            raise ToolRejected("window_not_found", f"there is no window {target!r} to resume; "
                               "create it with resume=false and a goal", windowId=target)
        record = existing
    else:
        if existing is not None:
            raise ToolRejected("window_exists", f"window {target!r} already exists; resume it with "
                               "resume=true", windowId=target)
        if args.goal is None:
            raise ToolRejected("invalid_arguments", "goal: required to create a window (resume=false)")
        count = len(ctx.window_ids())
        limit = ctx.option("maxWindows")
        if count >= limit:
            raise ToolRejected("window_limit_exceeded", f"the session has {count} windows (main included); "
                               f"at most {limit} are allowed", limit=limit)
        record = WindowRecord(goal=args.goal, parent=active)
    # a completed window may be resumed: it becomes active again and keeps its results
    record = record.model_copy(
        update={"status": "active", "handoff_input": args.input, "entered_from": active}
    )
    left = (ctx.window(active) or WindowRecord()).model_copy(update={"status": "suspended"})
    changes = _switch_changes(ctx, active, left, target, record, args.input)
    return Write(
        success(
            windowId=target,
            previousWindowId=active,
            created=not args.resume,
            stateRevision=ctx.next_revision,
            note=f"Window {target!r} is active from the next step on; this call and its result stay "
                 f"in window {active!r}.",
        ),
        changes,
    )


def window_memory_set(ctx: ToolContext, args: MemorySetArgs) -> Write:
    active = ctx.active_window()
    record = (ctx.window(active) or WindowRecord()).model_copy(update={"working_memory": args.memory})
    result = success(windowId=active, stateRevision=ctx.next_revision)
    return Write(result, {window_key(active): record.wire()})


def window_complete(ctx: ToolContext, args: WindowCompleteArgs) -> Write:
    active = ctx.active_window()
    if active == MAIN_WINDOW:
        raise ToolRejected("main_window_not_completable", "the main window cannot be completed; "
                           "answer the user directly instead")
    record = ctx.window(active) or WindowRecord()
    done = record.model_copy(update={"status": "completed", "results": [*record.results, args.result]})
    back = record.entered_from
    back_record = ctx.window(back) if back and back != active else None
    if back is None or back_record is None or back_record.status == "completed":
        back, back_record = MAIN_WINDOW, ctx.window(MAIN_WINDOW) or WindowRecord()
    resumed = back_record.model_copy(update={"status": "active"})
    changes = _switch_changes(ctx, active, done, back, resumed, args.result)
    return Write(
        success(completedWindowId=active, windowId=back, stateRevision=ctx.next_revision,
                note=f"Window {back!r} is active from the next step on."),
        changes,
    )


def window_list(ctx: ToolContext, args: WindowListArgs) -> dict[str, Any]:
    ids = ctx.window_ids()
    active = ctx.active_window()
    page = ids[args.offset : args.offset + args.limit]
    items = []
    for window_id in page:
        record = ctx.window(window_id) or WindowRecord()
        items.append({"windowId": window_id, "goal": record.goal, "status": record.status,
                      "parent": record.parent, "active": window_id == active})
    end = args.offset + args.limit
    return success(windows=items, total=len(ids), nextOffset=end if end < len(ids) else None)


def _snippet(text: str, query: str) -> str:
    """At most 200 UTF-16 units of ``text`` around the first match of ``query``."""
    flat = " ".join(text.split())
    at = max(flat.lower().find(query.lower()), 0)
    start = max(0, at - 60)
    prefix = "…" if start else ""
    body = flat[start:]
    if utf16_len(prefix + body) <= SNIPPET_UNITS:
        return prefix + body
    return prefix + utf16_truncate(body, SNIPPET_UNITS - len(prefix) - 1) + "…"


def message_item(msg: RawMessage) -> dict[str, Any]:
    """A raw message as a read tool returns it (run bookkeeping left out)."""
    wire = msg.wire()
    keep = ("index", "id", "windowId", "role", "kind", "content", "toolCalls", "toolCallId")
    return {k: wire[k] for k in keep if k in wire}


def window_search(ctx: ToolContext, args: WindowSearchArgs) -> dict[str, Any]:
    found = ctx.store.search(
        ctx.session_id, args.query, args.window_id, ctx.frozen.upper_bound, args.limit + 1
    )
    items = [
        {"index": m.index, "messageId": m.id, "windowId": m.window_id, "role": m.role, "kind": m.kind,
         "snippet": _snippet(m.text(), args.query)}
        for m in found[: args.limit]
    ]
    return success(matches=items, truncated=len(found) > args.limit)


def window_read(ctx: ToolContext, args: WindowReadArgs) -> dict[str, Any]:
    messages = ctx.window_messages(args.window_id, args.after_index, args.limit + 1)
    if not messages and ctx.window(args.window_id) is None:
        raise ToolRejected("window_not_found", f"there is no window {args.window_id!r} in this session",
                           windowId=args.window_id)
    page = messages[: args.limit]
    more = len(messages) > args.limit
    return success(windowId=args.window_id, messages=[message_item(m) for m in page],
                   nextAfterIndex=page[-1].index if more else None)


def task_memory_set(ctx: ToolContext, args: TaskMemorySetArgs) -> Write:
    return Write(success(stateRevision=ctx.next_revision), {TASK_MEMORY: args.memory})
