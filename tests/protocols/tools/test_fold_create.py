"""``context_fold_create``: P-23 … P-26 — every refusal reason, the limit, the summary bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from protocols import FrozenView

if TYPE_CHECKING:
    from conftest import Bench


def _fold(bench: Bench, first: int, last: int, summary: str = "did things", **kw: object) -> dict:
    return bench.call("context_fold_create", {"purpose": "p", "fromIndex": first, "throughIndex": last,
                                              "summary": summary}, **kw)  # type: ignore[arg-type]


def _reason(bench: Bench, result: dict) -> str:
    assert bench.code(result) == "fold_range_invalid", result
    return str(result["error"]["reason"])


@pytest.fixture
def worked(bench: Bench) -> Bench:
    """#1 input, #2/#3 call+result, #4 text, #5/#6 call+result, #7 text — all in main."""
    bench.b.user("quote please")
    bench.b.exchange("price_lookup", {"sku": "A"}, {"price": 3})
    bench.b.text("looked up")
    bench.b.exchange("quote_calculate", {"q": 3}, {"total": 9})
    bench.b.text("quote is 9")
    return bench


def test_p23_fold_of_complete_groups_stores_ids_and_summary(worked: Bench) -> None:
    r = worked.ok(_fold(worked, 2, 6, "looked up price 3 and quoted 9"))
    assert r["foldId"] == "f1" and r["messageCount"] == 5 and r["windowId"] == "main"
    assert worked.kv()["fold/f1"] == {"windowId": "main", "fromIndex": 2, "throughIndex": 6,
                                      "messageIds": ["m2", "m3", "m4", "m5", "m6"],
                                      "summary": "looked up price 3 and quoted 9"}
    assert worked.ok(_fold(worked, 7, 7))["foldId"] == "f2"  # deterministic ids


def test_p23_not_group_boundary(worked: Bench) -> None:
    assert _reason(worked, _fold(worked, 3, 4)) == "not_group_boundary"  # starts at a result
    assert _reason(worked, _fold(worked, 4, 5)) == "not_group_boundary"  # ends at a call
    assert worked.revision() == 0


def test_p23_user_input(worked: Bench) -> None:
    assert _reason(worked, _fold(worked, 1, 3)) == "user_input"


@pytest.mark.parametrize("kind", ["approval_feedback", "runtime_instruction"])
def test_p23_approval_feedback_and_runtime_instruction(bench: Bench, kind: str) -> None:
    bench.b.text("a")
    bench.b.user("ok, go ahead", kind=kind)
    bench.b.text("b")
    assert _reason(bench, _fold(bench, 1, 3)) == kind
    assert _reason(bench, _fold(bench, 2, 2)) == kind


def test_p23_incomplete_group(bench: Bench) -> None:
    bench.b.text("a")
    bench.b.call("slow_tool", {"x": 1}, call_id="open1")  # no result yet
    assert _reason(bench, _fold(bench, 1, 2)) == "incomplete_group"


def test_p23_incomplete_group_when_the_frozen_bound_cuts_a_pair(worked: Bench) -> None:
    # a view that saw the call #5 but not its result #6
    frozen = FrozenView(revision=0, upper_bound=5, run_id=worked.b.run_id)
    assert _reason(worked, _fold(worked, 4, 5, frozen=frozen)) == "incomplete_group"


def test_p23_unpaired_call(bench: Bench) -> None:
    bench.b.text("a")
    bench.b.result("nobody-called-me", {"x": 1})
    bench.b.text("b")
    assert _reason(bench, _fold(bench, 1, 3)) == "unpaired_call"
    bench.b.call("t", {}, call_id="cut")  # a call cut short by a text keeps its call unpaired
    bench.b.text("c")
    assert _reason(bench, _fold(bench, 4, 4)) == "unpaired_call"


def test_p24_overlap_and_nesting(worked: Bench) -> None:
    worked.ok(_fold(worked, 2, 4))
    r = _fold(worked, 2, 6)
    assert _reason(worked, r) == "overlap" and r["error"]["foldId"] == "f1"
    assert _reason(worked, _fold(worked, 2, 3)) == "overlap"  # nested
    assert _reason(worked, _fold(worked, 4, 7)) == "overlap"
    assert worked.revision() == 1


def test_p24_not_in_window_when_an_end_names_another_windows_message(bench: Bench) -> None:
    bench.b.text("main 1")
    bench.b.window = "beta"
    bench.b.text("beta 2")
    bench.b.window = "main"
    bench.b.text("main 3")
    r = _fold(bench, 2, 3)
    assert _reason(bench, r) == "not_in_window" and r["error"]["foreignIndexes"] == [2]
    assert _reason(bench, _fold(bench, 1, 2)) == "not_in_window"


def test_p24_a_range_across_another_windows_visit_folds_only_this_windows_groups(bench: Bench) -> None:
    """Folds and other windows (docs/design.md). Source: "折叠连续完整组 … 不允许重叠、嵌套、跨窗口或跨前缀
    边界" read with "context_history_list … 返回当前窗口未压缩历史的完整交互组、真实编号", "fold/<id>：窗口、
    首尾消息编号、有序原 MessageId 清单" and "窗口 A 的消息为 #1、#2、#7 时，A 的 coveredThrough=7 仅覆盖这三条，
    不覆盖其他窗口的 #3～#6": main's groups #1 and #4 are contiguous in main's history although beta's
    #2–#3 lie between them by index. The fold takes main's messages only; beta's stay as they are."""
    bench.b.text("main 1")
    bench.b.window = "beta"
    bench.b.text("beta 2")
    bench.b.text("beta 3")
    bench.b.window = "main"
    bench.b.text("main 4")
    listed = bench.ok(bench.call("context_history_list", {"purpose": "p"}))["items"]
    assert [(i["firstIndex"], i["foldable"]) for i in listed] == [(1, True), (4, True)]
    r = bench.ok(_fold(bench, 1, 4))
    assert r["messageCount"] == 2
    assert bench.kv()["fold/f1"]["messageIds"] == ["m1", "m4"]
    beta = bench.ok(bench.call("context_window_read", {"purpose": "p", "windowId": "beta"}))["messages"]
    assert [m["index"] for m in beta] == [2, 3]
    assert _reason(bench, _fold(bench, 2, 3)) == "not_in_window"  # beta's messages are never main's fold


def test_p24_crosses_prefix_boundary(worked: Bench) -> None:
    worked.store.commit(worked.sid, 0, {"coveredThrough/main": 3})
    r = _fold(worked, 2, 4)
    assert _reason(worked, r) == "crosses_prefix_boundary" and r["error"]["coveredThrough"] == 3
    assert _reason(worked, _fold(worked, 3, 4)) == "crosses_prefix_boundary"
    worked.ok(_fold(worked, 4, 6))


def test_p24_beyond_upper_bound_and_the_creating_call_never_folds_itself(worked: Bench) -> None:
    frozen = FrozenView(revision=0, upper_bound=4, run_id=worked.b.run_id)
    assert _reason(worked, _fold(worked, 5, 6, frozen=frozen)) == "beyond_upper_bound"
    # the creating call is written at upperBound + 1 = #8: folding through it is beyond the bound
    r = worked.step("context_fold_create", {"purpose": "p", "fromIndex": 7, "throughIndex": 8, "summary": "s"})
    assert _reason(worked, r) == "beyond_upper_bound"


def test_p25_fold_limit_counts_compressed_folds(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench(maxFolds=1)
    for i in range(4):
        bench.b.text(f"note {i}")
    bench.ok(_fold(bench, 1, 2))
    bench.store.commit(bench.sid, 1, {"coveredThrough/main": 2})  # f1 is compressed now
    r = _fold(bench, 3, 4)
    assert bench.code(r) == "fold_limit_exceeded" and r["error"]["limit"] == 1
    assert "fold/f2" not in bench.kv()


def test_p23_summary_is_counted_in_utf16_units(bench: Bench) -> None:
    """The summary allows 1–2000 UTF-16 units; a longer one is ``invalid_arguments`` naming summary."""
    bench.b.text("a")
    bench.b.text("b")
    r = _fold(bench, 1, 1, "😀" * 1001)  # 1001 code points, 2002 units
    assert bench.code(r) == "invalid_arguments" and "summary" in r["error"]["message"]
    assert bench.code(_fold(bench, 1, 1, "")) == "invalid_arguments"
    assert bench.code(_fold(bench, 1, 1, "x" * 2001)) == "invalid_arguments"
    bench.ok(_fold(bench, 1, 1, "😀" * 1000))
    bench.ok(_fold(bench, 2, 2, "x" * 2000))


def test_from_after_through_is_invalid(worked: Bench) -> None:
    assert worked.code(_fold(worked, 4, 2)) == "invalid_arguments"


def test_p24_fold_is_in_the_active_window_only(bench: Bench) -> None:
    bench.b.text("main 1")
    bench.ok(bench.step("context_window_open", {"purpose": "p", "windowId": "alpha", "goal": "g"}))
    bench.b.text("alpha 4")
    bench.b.text("alpha 5")
    assert _reason(bench, _fold(bench, 1, 1)) == "not_in_window"
    r = bench.ok(_fold(bench, 4, 5))
    assert r["windowId"] == "alpha" and bench.kv()["fold/f1"]["windowId"] == "alpha"
