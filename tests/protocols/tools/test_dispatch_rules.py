"""The dispatcher: order of checks, receipts (P-42), stale state (P-41), KV limits (P-7), P-22, P-40."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from protocols import FrozenView, KvLimits, RevisionConflict, ToolCall
from protocols.store import SessionStore

if TYPE_CHECKING:  # the bench is a fixture of this folder's conftest
    from conftest import Bench


def test_e6_unknown_tool_is_a_structured_result(bench: Bench) -> None:
    r = bench.call("context_unfold", {"purpose": "p"})
    assert bench.code(r) == "unknown_tool"
    assert "context_fold_read" in r["error"]["message"]


def test_p28_p90_prefix_has_no_tools_so_every_name_is_unknown(make_bench: Callable[..., Bench]) -> None:
    prefix = make_bench("prefix@2")
    assert prefix.code(prefix.call("context_window_list", {"purpose": "p"})) == "unknown_tool"


@pytest.mark.parametrize("raw", ['{"purpose": ', "[1, 2]", "not json"])
def test_e6_arguments_that_are_not_a_json_object_are_invalid(bench: Bench, raw: str) -> None:
    r = bench.call("context_window_list", raw)
    assert bench.code(r) == "invalid_arguments"


def test_e6_schema_failure_names_the_field(bench: Bench) -> None:
    r = bench.call("context_window_list", {"purpose": "p", "limit": 51})
    assert bench.code(r) == "invalid_arguments"
    assert "limit" in r["error"]["message"]
    r = bench.call("context_window_list", {"limit": 5})
    assert "purpose" in r["error"]["message"]
    r = bench.call("context_window_list", {"purpose": "   "})
    assert bench.code(r) == "invalid_arguments" and "purpose" in r["error"]["message"]


@pytest.mark.parametrize("field,value", [("revision", 99), ("upperBound", 99), ("sessionId", "s2")])
def test_p40_authorisation_cannot_be_passed_as_arguments(bench: Bench, field: str, value: object) -> None:
    r = bench.call("context_task_memory_set", {"purpose": "p", "memory": "m", field: value})
    assert bench.code(r) == "invalid_arguments"
    assert field in r["error"]["message"]
    assert bench.revision() == 0 and "taskMemory" not in bench.kv()


@pytest.mark.parametrize("ref", ["unified@2", "unified@3"])
def test_p74_missing_expected_window_id_comes_before_schema_errors(make_bench: Callable[..., Bench],
                                                                   ref: str) -> None:
    bench = make_bench(ref)
    r = bench.call("context_window_memory_set", {"purpose": "p"})  # memory missing too
    assert bench.code(r) == "context_window_expectation_required"
    r = bench.call("context_window_memory_set", {"purpose": "p", "memory": "m", "expectedWindowId": None})
    assert bench.code(r) == "context_window_expectation_required"
    assert bench.revision() == 0


def test_p22_read_tools_change_neither_revision_nor_kv(bench: Bench) -> None:
    bench.b.user("hello")
    bench.b.exchange("quote_calculate", {"q": 3}, {"price": 9})
    bench.ok(bench.step("context_fold_create", {"purpose": "p", "fromIndex": 2, "throughIndex": 3,
                                                "summary": "quoted 9"}))
    before_kv, before_rev = bench.kv(), bench.revision()
    before_msgs = bench.store.all_messages(bench.sid)
    reads = [
        ("context_window_list", {"purpose": "p"}),
        ("context_window_search", {"purpose": "p", "query": "price"}),
        ("context_window_read", {"purpose": "p", "windowId": "main"}),
        ("context_history_list", {"purpose": "p"}),
        ("context_fold_list", {"purpose": "p"}),
        ("context_fold_read", {"purpose": "p", "foldId": "f1"}),
    ]
    for name, args in reads:
        bench.ok(bench.call(name, args))
    assert bench.kv() == before_kv
    assert bench.revision() == before_rev
    assert bench.store.all_messages(bench.sid) == before_msgs
    assert len(bench.store.receipts(bench.sid)) == 1 + len(reads)  # receipts stored, no revision change


def test_p41_stale_frozen_revision_fails_with_current_revision_and_changes_nothing(bench: Bench) -> None:
    old = bench.b.frozen()
    bench.ok(bench.call("context_task_memory_set", {"purpose": "p", "memory": "first"}))
    r = bench.call("context_task_memory_set", {"purpose": "p", "memory": "second"}, frozen=old)
    assert bench.code(r) == "context_state_stale"
    assert r["error"]["currentRevision"] == 1
    assert bench.kv()["taskMemory"] == "first" and bench.revision() == 1
    # thinking again with the current view succeeds
    bench.ok(bench.call("context_task_memory_set", {"purpose": "p", "memory": "second"}))


class _RacingStore:
    """Wraps a store so that another writer commits between the tool's check and its commit."""

    def __init__(self, inner: SessionStore, sid: str) -> None:
        self._inner, self._sid = inner, sid
        self.raced = False

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def commit(self, session_id: str, expected_revision: int, changes: object, receipt: object = None) -> int:
        if not self.raced:
            self.raced = True
            self._inner.commit(session_id, expected_revision, {"taskMemory": "other writer"})
        return self._inner.commit(session_id, expected_revision, changes, receipt=receipt)  # type: ignore[arg-type]


def test_p41_e9_revision_conflict_at_commit_is_stale(bench: Bench) -> None:
    racing = _RacingStore(bench.store, bench.sid)
    frozen = bench.b.frozen()
    call = ToolCall(id="race", name="context_task_memory_set", arguments='{"purpose":"p","memory":"mine"}')
    r = bench.protocol.dispatch(racing, bench.sid, call, frozen)  # type: ignore[arg-type]
    assert bench.code(r) == "context_state_stale" and r["error"]["currentRevision"] == 1
    assert bench.kv()["taskMemory"] == "other writer"
    assert bench.store.receipt(bench.sid, "race") == r
    with pytest.raises(RevisionConflict):  # the inner store really refuses a stale commit
        bench.store.commit(bench.sid, 0, {})


def test_p42_replay_returns_identical_receipt_and_creates_no_second_fold(bench: Bench) -> None:
    bench.b.user("hello")
    bench.b.text("a")
    bench.b.text("b")
    args = {"purpose": "p", "fromIndex": 2, "throughIndex": 3, "summary": "two notes"}
    frozen = bench.b.frozen()
    first = bench.call("context_fold_create", args, call_id="c-fold", frozen=frozen)
    bench.ok(first)
    rev, kv = bench.revision(), bench.kv()
    again = bench.call("context_fold_create", args, call_id="c-fold", frozen=frozen)
    later = bench.call("context_fold_create", args, call_id="c-fold")  # even with a fresh view
    assert again == first == later
    assert bench.revision() == rev and bench.kv() == kv
    assert [k for k in kv if k.startswith("fold/")] == ["fold/f1"]


def test_p42_replay_of_a_failure_returns_the_same_failure(bench: Bench) -> None:
    first = bench.call("context_window_complete", {"purpose": "p", "result": "r"}, call_id="c1")
    assert bench.code(first) == "main_window_not_completable"
    bench.ok(bench.call("context_window_open", {"purpose": "p", "windowId": "a", "goal": "g"}))
    # the same call id now answers the stored failure, although the call would succeed now
    assert bench.call("context_window_complete", {"purpose": "p", "result": "r"}, call_id="c1") == first
    assert bench.active() == "a"


def test_p42_receipt_commits_with_the_kv_change(bench: Bench) -> None:
    r = bench.call("context_task_memory_set", {"purpose": "p", "memory": "m"}, call_id="c1")
    assert bench.store.receipt(bench.sid, "c1") == r
    assert r["stateRevision"] == bench.revision() == 1


def test_p7_write_over_value_size_limit_is_kv_limit_exceeded(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench(limits=KvLimits(max_keys=4096, max_value_bytes=200))
    r = bench.call("context_task_memory_set", {"purpose": "p", "memory": "x" * 300}, call_id="big")
    assert bench.code(r) == "kv_limit_exceeded"
    assert bench.revision() == 0 and "taskMemory" not in bench.kv()
    assert bench.store.receipt(bench.sid, "big") == r


def test_p7_write_over_key_count_limit_is_kv_limit_exceeded(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench(limits=KvLimits(max_keys=3, max_value_bytes=64 * 1024))
    bench.ok(bench.call("context_window_open", {"purpose": "p", "windowId": "a", "goal": "g"}))  # 3 keys
    r = bench.call("context_task_memory_set", {"purpose": "p", "memory": "m"})
    assert bench.code(r) == "kv_limit_exceeded"
    assert bench.revision() == 1 and set(bench.kv()) == {"activeWindow", "window/a", "window/main"}


def test_p40_frozen_upper_bound_not_arguments_bounds_reads(bench: Bench) -> None:
    bench.b.user("alpha secret")
    bench.b.text("beta secret")
    early = FrozenView(revision=0, upper_bound=1, run_id=bench.b.run_id)
    r = bench.ok(bench.call("context_window_search", {"purpose": "p", "query": "secret"}, frozen=early))
    assert [m["index"] for m in r["matches"]] == [1]
