"""The reused window tools (first tool table), P-44, P-72 … P-74."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Bench

RESUME_ALPHA = {"purpose": "复核报价", "expectedWindowId": "beta", "windowId": "alpha", "resume": True,
                "input": "beta排期已完成；只核对alpha检查点，不覆写报价，随后汇报。"}


def _open(bench: Bench, window: str, goal: str | None = "g", **extra: object) -> dict:
    args: dict[str, object] = {"purpose": "p", "windowId": window, **extra}
    if goal is not None:
        args["goal"] = goal
    return bench.call("context_window_open", args)


def test_open_creates_window_and_suspends_the_previous_one(bench: Bench) -> None:
    r = bench.ok(_open(bench, "alpha", "报价", input="quote 3 units"))
    assert r["windowId"] == "alpha" and r["previousWindowId"] == "main" and r["created"] is True
    kv = bench.kv()
    assert kv["activeWindow"] == "alpha"
    assert kv["window/alpha"]["status"] == "active" and kv["window/alpha"]["goal"] == "报价"
    assert kv["window/alpha"]["parent"] == "main" and kv["window/alpha"]["enteredFrom"] == "main"
    assert kv["window/alpha"]["handoffInput"] == "quote 3 units"
    assert kv["window/main"]["status"] == "suspended"
    assert "currentWindowEntry" not in kv  # v1 has no entry record


def test_open_errors_exists_not_found_already_active(bench: Bench) -> None:
    bench.ok(_open(bench, "alpha"))
    assert bench.code(_open(bench, "alpha")) == "window_already_active"
    assert bench.code(_open(bench, "main")) == "window_exists"
    assert bench.code(_open(bench, "ghost", resume=True)) == "window_not_found"
    r = _open(bench, "beta", goal=None)
    assert bench.code(r) == "invalid_arguments" and "goal" in r["error"]["message"]
    assert bench.revision() == 1


def test_open_window_limit_counts_main(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench(maxWindows=2)
    bench.ok(_open(bench, "alpha"))
    r = _open(bench, "beta")
    assert bench.code(r) == "window_limit_exceeded" and r["error"]["limit"] == 2
    bench.ok(_open(bench, "main", goal=None, resume=True))  # resuming is not creating


def test_window_id_cannot_inject_a_kv_key(bench: Bench) -> None:
    assert bench.code(_open(bench, "a/b")) == "invalid_arguments"
    assert bench.code(_open(bench, "")) == "invalid_arguments"


def test_memory_set_replaces_the_active_windows_memory(bench: Bench) -> None:
    bench.ok(bench.call("context_window_memory_set", {"purpose": "p", "memory": "one"}))
    bench.ok(_open(bench, "alpha"))
    bench.ok(bench.call("context_window_memory_set", {"purpose": "p", "memory": "two"}))
    bench.ok(bench.call("context_window_memory_set", {"purpose": "p", "memory": "three"}))
    assert bench.kv()["window/main"]["workingMemory"] == "one"
    assert bench.kv()["window/alpha"]["workingMemory"] == "three"


def test_complete_returns_to_the_window_it_was_entered_from(bench: Bench) -> None:
    bench.ok(_open(bench, "alpha"))
    bench.ok(_open(bench, "beta"))
    r = bench.ok(bench.call("context_window_complete", {"purpose": "p", "result": "schedule done"}))
    assert r["completedWindowId"] == "beta" and r["windowId"] == "alpha"
    kv = bench.kv()
    assert kv["activeWindow"] == "alpha" and kv["window/alpha"]["status"] == "active"
    assert kv["window/beta"]["status"] == "completed" and kv["window/beta"]["results"] == ["schedule done"]


def test_complete_falls_back_to_main_when_the_origin_is_completed(bench: Bench) -> None:
    bench.ok(_open(bench, "alpha"))
    bench.ok(_open(bench, "beta"))  # beta entered from alpha
    bench.ok(_open(bench, "alpha", goal=None, resume=True))
    bench.ok(bench.call("context_window_complete", {"purpose": "p", "result": "quote"}))  # alpha → beta
    assert bench.active() == "beta"
    # beta was entered from alpha, which is completed now: back to main
    r = bench.ok(bench.call("context_window_complete", {"purpose": "p", "result": "schedule"}))
    assert r["windowId"] == "main" and bench.active() == "main"
    assert bench.kv()["window/main"]["status"] == "active"


def test_main_window_cannot_be_completed(bench: Bench) -> None:
    r = bench.call("context_window_complete", {"purpose": "p", "result": "r"})
    assert bench.code(r) == "main_window_not_completable"
    assert bench.revision() == 0


def test_a_completed_window_can_be_resumed_and_keeps_its_results(bench: Bench) -> None:
    bench.ok(_open(bench, "alpha"))
    bench.ok(bench.call("context_window_complete", {"purpose": "p", "result": "quote 1"}))
    bench.ok(_open(bench, "alpha", goal=None, resume=True, input="budget is now 9000"))
    record = bench.kv()["window/alpha"]
    assert record["status"] == "active" and record["results"] == ["quote 1"]
    assert record["handoffInput"] == "budget is now 9000"


def test_list_pages_with_next_offset(bench: Bench) -> None:
    for w in ("c", "a", "b"):
        bench.ok(_open(bench, w, goal=f"goal {w}"))
    r = bench.ok(bench.call("context_window_list", {"purpose": "p", "limit": 2}))
    assert [w["windowId"] for w in r["windows"]] == ["main", "a"] and r["nextOffset"] == 2
    r = bench.ok(bench.call("context_window_list", {"purpose": "p", "offset": 2, "limit": 2}))
    assert [(w["windowId"], w["goal"], w["status"]) for w in r["windows"]] == [
        ("b", "goal b", "active"), ("c", "goal c", "suspended")]
    assert r["nextOffset"] is None and r["total"] == 4


def test_search_is_case_insensitive_over_this_session_only(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench()
    other = make_bench(store=bench.store, session_id="s2")
    other.b.user("Budget 9000 in the other session")
    bench.b.user("The BUDGET is 5000")
    bench.b.window = "alpha"
    bench.b.text("x" * 300 + " budget again " + "y" * 300)
    r = bench.ok(bench.call("context_window_search", {"purpose": "p", "query": "budget"}))
    assert [(m["index"], m["windowId"], m["role"], m["kind"]) for m in r["matches"]] == [
        (1, "main", "user", "input"), (2, "alpha", "assistant", "text")]
    long_snippet = r["matches"][1]["snippet"]
    assert "budget again" in long_snippet and len(long_snippet.encode("utf-16-le")) // 2 <= 200
    r = bench.ok(bench.call("context_window_search", {"purpose": "p", "query": "budget", "windowId": "alpha"}))
    assert [m["index"] for m in r["matches"]] == [2]
    r = bench.ok(bench.call("context_window_search", {"purpose": "p", "query": "budget", "limit": 1}))
    assert len(r["matches"]) == 1 and r["truncated"] is True


def test_read_pages_a_windows_raw_messages_up_to_the_frozen_bound(bench: Bench) -> None:
    for i in range(5):
        bench.b.text(f"note {i}")
    bench.b.window = "alpha"
    bench.b.text("elsewhere")
    r = bench.ok(bench.call("context_window_read", {"purpose": "p", "windowId": "main", "limit": 3}))
    assert [m["index"] for m in r["messages"]] == [1, 2, 3] and r["nextAfterIndex"] == 3
    assert r["messages"][0]["content"] == "note 0" and r["messages"][0]["id"] == "m1"
    r = bench.ok(bench.call("context_window_read", {"purpose": "p", "windowId": "main", "afterIndex": 3}))
    assert [m["index"] for m in r["messages"]] == [4, 5] and r["nextAfterIndex"] is None
    r = bench.call("context_window_read", {"purpose": "p", "windowId": "ghost"})
    assert bench.code(r) == "window_not_found"


def test_task_memory_set_replaces_task_memory(bench: Bench) -> None:
    bench.ok(bench.call("context_task_memory_set", {"purpose": "p", "memory": "budget 5000"}))
    bench.ok(bench.call("context_task_memory_set", {"purpose": "p", "memory": "budget 9000"}))
    assert bench.kv()["taskMemory"] == "budget 9000" and bench.revision() == 2


def test_p44_switch_call_and_result_stay_in_the_window_that_was_active(bench: Bench) -> None:
    bench.b.user("start")
    bench.ok(bench.step("context_window_open", {"purpose": "p", "windowId": "alpha", "goal": "g"}))
    bench.b.text("inside alpha")
    windows = [(m.index, m.window_id) for m in bench.store.all_messages(bench.sid)]
    assert windows == [(1, "main"), (2, "main"), (3, "main"), (4, "alpha")]


# v2 / v3 ------------------------------------------------------------------------------------------
@pytest.fixture(params=["unified@2", "unified@3"])
def v2(request: pytest.FixtureRequest, make_bench: Callable[..., Bench]) -> Bench:
    return make_bench(request.param)


def _v2_open(bench: Bench, window: str, expected: str, **extra: object) -> dict:
    return bench.call("context_window_open", {"purpose": "p", "windowId": window, "expectedWindowId": expected,
                                              "goal": f"goal {window}", "input": f"enter {window}", **extra})


def test_p72_switch_writes_current_window_entry_in_the_same_transaction(v2: Bench) -> None:
    v2.b.user("start")
    r = v2.ok(_v2_open(v2, "alpha", "main"))
    entry = v2.kv()["currentWindowEntry"]
    assert entry == {"windowId": "alpha", "fromWindow": "main", "enteredAtUpperBound": 1,
                     "input": "enter alpha", "revision": 1}
    assert r["stateRevision"] == v2.revision() == 1  # one commit: window records + entry


def test_p72_complete_writes_current_window_entry_for_the_return(v2: Bench) -> None:
    v2.ok(_v2_open(v2, "alpha", "main"))
    v2.b.text("quoted")
    r = v2.call("context_window_complete", {"purpose": "p", "result": "quote 42", "expectedWindowId": "alpha"})
    v2.ok(r)
    assert v2.kv()["currentWindowEntry"] == {"windowId": "main", "fromWindow": "alpha", "enteredAtUpperBound": 1,
                                             "input": "quote 42", "revision": 2}


def test_p73_open_requires_non_empty_input(v2: Bench) -> None:
    r = v2.call("context_window_open", {"purpose": "p", "windowId": "a", "goal": "g", "expectedWindowId": "main"})
    assert v2.code(r) == "invalid_arguments" and "input" in r["error"]["message"]
    r = _v2_open(v2, "a", "main", input="")
    assert v2.code(r) == "invalid_arguments"
    assert v2.revision() == 0


def test_p73_p74_source_resume_example_then_stale_window_claim_is_refused(v2: Bench) -> None:
    v2.b.user("报价，然后排期")
    v2.ok(v2.step("context_window_open", {"purpose": "报价", "expectedWindowId": "main", "windowId": "alpha",
                                          "goal": "报价", "input": "计算报价"}))
    v2.ok(v2.step("context_window_memory_set", {"purpose": "记录", "expectedWindowId": "alpha",
                                                "memory": "报价 42000"}))
    v2.ok(v2.step("context_window_open", {"purpose": "排期", "expectedWindowId": "alpha", "windowId": "beta",
                                          "goal": "排期", "input": "报价完成，开始排期"}))
    r = v2.ok(v2.step("context_window_open", RESUME_ALPHA))
    assert r["windowId"] == "alpha" and v2.active() == "alpha"
    assert v2.kv()["currentWindowEntry"]["fromWindow"] == "beta"
    assert v2.kv()["window/alpha"]["handoffInput"] == RESUME_ALPHA["input"]
    before_rev, before_kv = v2.revision(), v2.kv()
    r = v2.call("context_window_memory_set", {"purpose": "写排期", "expectedWindowId": "beta",
                                              "memory": "排期：周三交付"})
    assert v2.code(r) == "context_window_mismatch"
    assert r["error"]["currentWindowId"] == "alpha" and r["error"]["stateRevision"] == before_rev
    assert v2.revision() == before_rev and v2.kv() == before_kv
    assert v2.kv()["window/alpha"]["workingMemory"] == "报价 42000"


@pytest.mark.parametrize("tool,args", [
    ("context_window_open", {"windowId": "x", "goal": "g", "input": "i"}),
    ("context_window_memory_set", {"memory": "m"}),
    ("context_window_complete", {"result": "r"}),
    ("context_fold_create", {"fromIndex": 1, "throughIndex": 1, "summary": "s"}),
])
def test_p74_every_write_tool_checks_the_expected_window(v2: Bench, tool: str, args: dict) -> None:
    v2.b.text("t")
    v2.ok(_v2_open(v2, "alpha", "main"))
    r = v2.call(tool, {"purpose": "p", "expectedWindowId": "main", **args})
    assert v2.code(r) == "context_window_mismatch" and r["error"]["currentWindowId"] == "alpha"
    assert v2.revision() == 1
    r = v2.call(tool, {"purpose": "p", **args})
    assert v2.code(r) == "context_window_expectation_required"


def test_p74_stale_revision_still_applies(v2: Bench) -> None:
    old = v2.b.frozen()
    v2.ok(v2.call("context_task_memory_set", {"purpose": "p", "memory": "m"}))
    r = v2.call("context_window_memory_set", {"purpose": "p", "memory": "x", "expectedWindowId": "main"},
                frozen=old)
    assert v2.code(r) == "context_state_stale" and r["error"]["currentRevision"] == 1
