"""``context_history_list``'s ``foldable`` agrees exactly with what ``context_fold_create`` accepts
(issue 9 deviation 7; P-23, P-24, P-25).

Over random sessions — other windows' messages interleaved, user inputs, dangling calls, orphan
results, existing folds, a compressed prefix, a reached ``maxFolds`` — every index pair
(fromIndex, throughIndex) of the active window is accepted exactly when it spans a run of
consecutive listed items that are all ``foldable``. Acceptance is asked of the tool's own check
(``fold_create`` on the call's context), so nothing is committed between pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from protocols.tools import ToolContext, ToolRejected
from protocols.tools._args import FoldCreateArgs
from protocols.tools._folds import fold_create

if TYPE_CHECKING:
    from conftest import Bench

_KINDS = ["input", "text", "text", "exchange", "exchange", "dangling", "orphan"]
_MESSAGES = st.lists(st.tuples(st.sampled_from(["main", "main", "beta"]), st.sampled_from(_KINDS)),
                     min_size=1, max_size=14)


def _write(bench: Bench, window: str, kind: str) -> None:
    bench.b.window = window
    if kind == "input":
        bench.b.user("输入")
    elif kind == "text":
        bench.b.text("记录")
    elif kind == "exchange":
        bench.b.exchange("quote_calculate", {"n": 1}, {"total": 1})
    elif kind == "dangling":
        bench.b.call("slow_tool", {})
    else:
        bench.b.result("nobody", {"late": True})


def _listing(bench: Bench) -> list[dict[str, Any]]:
    return bench.ok(bench.call("context_history_list", {"purpose": "p", "limit": 50}))["items"]


def _accepts(bench: Bench, first: int, last: int) -> bool:
    ctx = ToolContext(bench.protocol, bench.store, bench.sid, bench.b.frozen())
    try:
        fold_create(ctx, FoldCreateArgs(purpose="p", fromIndex=first, throughIndex=last, summary="s"))
    except ToolRejected as rejected:
        assert rejected.code in ("fold_range_invalid", "fold_limit_exceeded"), rejected.code
        return False
    return True


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=_MESSAGES, folds=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 2)), max_size=3),
       cover=st.integers(0, 3), max_folds=st.sampled_from([1, 2, 1024]))
def test_listed_foldable_runs_are_exactly_the_accepted_ranges(
        make_bench: Callable[..., Bench], messages: list[tuple[str, str]], folds: list[tuple[int, int]],
        cover: int, max_folds: int) -> None:
    bench = make_bench("unified@1", maxFolds=max_folds)
    for window, kind in messages:
        _write(bench, window, kind)
    bench.b.window = "main"
    for pick, extra in folds:  # existing folds, made from the listing as a model would
        items = _listing(bench)
        runs = [(i, j) for i in range(len(items)) for j in range(i, min(i + extra, len(items) - 1) + 1)
                if all(it["foldable"] for it in items[i:j + 1])]
        if runs:
            i, j = runs[pick % len(runs)]
            bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": items[i]["firstIndex"],
                                                        "throughIndex": items[j]["lastIndex"], "summary": "s"}))
    if cover:  # a compressed prefix: coveredThrough at the end of one of main's listed items
        items = _listing(bench)
        if len(items) > cover:
            end = items[cover - 1]["lastIndex"]
            checkpoint = {"summary": "c", "coveredThrough": end}
            bench.store.commit(bench.sid, bench.revision(), {"coveredThrough/main": end, "checkpoint/main": checkpoint})
    items = _listing(bench)
    expected = {(items[i]["firstIndex"], items[j]["lastIndex"])
                for i in range(len(items)) for j in range(i, len(items))
                if all(it["foldable"] for it in items[i:j + 1])}
    top = bench.store.max_index(bench.sid) + 1
    accepted = {(a, b) for a in range(1, top + 1) for b in range(a, top + 1) if _accepts(bench, a, b)}
    event(f"foldable ranges: {min(len(expected), 5)}{'+' if len(expected) >= 5 else ''}")
    assert accepted == expected
