"""Prefix compression (P-50 … P-54, E-13): boundary, paging, truncation, the committed checkpoint."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import pytest

from protocols import (
    Fold,
    FrozenView,
    InvalidInput,
    MaintenanceRequest,
    MaintenanceResult,
    Protocol,
    ToolCall,
    maintain_window,
    resolve,
    should_maintain,
)
from protocols.store import MemoryStore, SessionStore, SqliteStore
from tests.helpers.builders import SessionBuilder


class Recorder:
    """A scripted maintainer: answers each page with a summary naming the page's message ids."""

    def __init__(self, answer: str | None = None) -> None:
        self.requests: list[MaintenanceRequest] = []
        self.answer = answer

    async def __call__(self, request: MaintenanceRequest) -> str:
        self.requests.append(request)
        if self.answer is not None:
            return self.answer
        return f"p{request.page}:" + ",".join(m.id for m in request.messages)


def maintain(protocol: Protocol, store: SessionStore, maintainer: Any, window: str = "main",
             **kw: Any) -> MaintenanceResult:
    return asyncio.run(maintain_window(protocol, store, "s1", window, maintainer, **kw))


def texts(b: SessionBuilder, n: int) -> None:
    for i in range(n):
        b.text(f"{b.window} note {i}")


def test_p50_threshold_on_real_input_tokens() -> None:
    assert should_maintain(1000, 1000) and should_maintain(1500, 1000)
    assert not should_maintain(999, 1000)
    assert not should_maintain(10**9, None)  # no threshold: never automatically


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_p52_commit_writes_checkpoint_and_covered_through_in_one_revision(backend: str) -> None:
    store = MemoryStore() if backend == "memory" else SqliteStore()
    b = SessionBuilder(store)
    b.user("start")
    texts(b, 9)
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=4)
    assert result.status == "compressed" and result.reason is None
    assert (result.from_index, result.through_index, result.pages, result.revision) == (1, 6, 1, 1)
    covered = store.all_messages("s1")[:6]
    expected_hash = hashlib.sha256(json.dumps([m.wire() for m in covered], sort_keys=True, separators=(",", ":"),
                                              ensure_ascii=False).encode()).hexdigest()
    assert store.kv_get("s1", "coveredThrough/main") == 6
    assert store.kv_get("s1", "checkpoint/main") == {
        "summary": "p1:m1,m2,m3,m4,m5,m6", "coveredThrough": 6, "sourceHash": expected_hash, "revision": 0}
    assert store.revision("s1") == 1
    assert result.checkpoint_length == len("p1:m1,m2,m3,m4,m5,m6")


def test_p53_keeps_the_most_recent_groups_and_never_cuts_a_group() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    b.user("go")                                          # 1
    b.exchange("lookup", {"q": 1})                        # 2, 3
    call = b.call("a")                                    # 4 opens a group …
    b.call("b")                                           # 5 … joined while c1 is open
    assert call.tool_calls
    b.result("c2", "ra")                                  # 6
    b.result("c3", "rb")                                  # 7 closes the group 4..7
    b.text("done")                                        # 8
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=1)
    assert result.through_index == 7                      # the 4..7 group whole, "done" kept
    store2 = MemoryStore()
    b2 = SessionBuilder(store2)
    b2.user("go")
    b2.exchange("lookup")
    b2.text("a")
    b2.text("b")
    assert maintain(resolve("unified", 1), store2, Recorder(), keep_recent_groups=2).through_index == 3


def test_p53_never_covers_a_group_still_waiting_for_its_results() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    b.user("go")
    b.text("plan")
    b.call("slow_tool")                                   # 3: no result yet (a dispatch in flight)
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=0)
    assert result.through_index == 2


def test_p53_the_boundary_moves_back_before_a_fold_it_would_cut() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 10)
    fold = Fold(window_id="main", from_index=4, through_index=7, message_ids=["m4", "m5", "m6", "m7"], summary="f")
    store.commit("s1", 0, {"fold/f1": fold.wire()})
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=4)  # would be 6
    assert result.status == "compressed" and result.through_index == 3
    assert result.compressed_folds == ()
    # with fewer groups kept, the boundary may cover the whole fold: it then becomes compressed (P-54)
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=2)
    assert (result.from_index, result.through_index, result.compressed_folds) == (4, 8, ("f1",))


def test_p53_a_fold_covering_everything_coverable_leaves_nothing_to_do() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 6)
    fold = Fold(window_id="main", from_index=1, through_index=5, message_ids=[f"m{i}" for i in range(1, 6)],
                summary="f")
    store.commit("s1", 0, {"fold/f1": fold.wire()})
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=2)
    assert (result.status, result.reason, result.revision) == ("nothing_to_do", "no_boundary", 1)
    assert store.kv_get("s1", "coveredThrough/main") is None


def test_p8_only_the_windows_own_messages_are_covered() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    for i in range(12):
        b.window = "alpha" if i % 3 else "beta"
        b.text(f"{b.window} {i}")
    recorder = Recorder()
    result = maintain(resolve("unified", 1), store, recorder, window="alpha", keep_recent_groups=2)
    alpha = [m.index for m in store.window_messages("s1", "alpha", 0, 12)]
    assert result.through_index == alpha[-3]
    assert [m.index for r in recorder.requests for m in r.messages] == alpha[:-2]
    assert all(m.window_id == "alpha" for r in recorder.requests for m in r.messages)
    assert store.kv_get("s1", "coveredThrough/beta") is None


@pytest.mark.parametrize("page_size,n", [(3, 11), (5, 10), (200, 7)])
def test_p51_pages_of_raw_messages_chain_the_previous_checkpoint(page_size: int, n: int) -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, n + 1)
    store.commit("s1", 0, {"checkpoint/main": {"summary": "older summary", "coveredThrough": 0}})
    recorder = Recorder()
    result = maintain(resolve("unified", 2, {"pageSize": page_size}), store, recorder, keep_recent_groups=1)
    pages = -(-n // page_size)
    assert result.pages == pages and [r.page for r in recorder.requests] == list(range(1, pages + 1))
    assert {r.page_count for r in recorder.requests} == {pages}
    assert all(len(r.messages) <= page_size for r in recorder.requests)
    assert [m for r in recorder.requests for m in r.messages] == store.all_messages("s1")[:n]  # raw, in order
    assert recorder.requests[0].previous_checkpoint == "older summary"
    for before, after in zip(recorder.requests, recorder.requests[1:], strict=False):
        assert after.previous_checkpoint == f"p{before.page}:" + ",".join(m.id for m in before.messages)
    assert {r.max_characters for r in recorder.requests} == {3000}  # unified@2's checkpoint budget
    assert recorder.requests[0].wire()["maxCharacters"] == 3000


def test_p51_a_fold_in_the_range_is_read_as_its_raw_messages_not_its_summary() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 6)
    fold = Fold(window_id="main", from_index=2, through_index=3, message_ids=["m2", "m3"], summary="FOLD SUMMARY")
    store.commit("s1", 0, {"fold/f1": fold.wire()})
    recorder = Recorder()
    maintain(resolve("unified", 1), store, recorder, keep_recent_groups=1)
    seen = [m for r in recorder.requests for m in r.messages]
    assert [m.id for m in seen] == ["m1", "m2", "m3", "m4", "m5"]
    assert "FOLD SUMMARY" not in json.dumps([r.wire() for r in recorder.requests])


def test_p51_an_overlong_checkpoint_is_cut_at_a_utf16_unit_boundary() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 5)
    answer = "a" * 999 + "🚀" + "tail"  # the rocket is two UTF-16 units straddling the 1000 limit
    result = maintain(resolve("unified", 1, {"checkpointMaxCharacters": 1000}), store, Recorder(answer),
                      keep_recent_groups=1)
    summary = store.kv_get("s1", "checkpoint/main")["summary"]
    assert summary == "a" * 999
    assert result.truncated and result.checkpoint_length == 999
    exact = "é" * 1000
    maintain(resolve("unified", 1, {"checkpointMaxCharacters": 1000}), store, Recorder(exact), keep_recent_groups=0)
    assert store.kv_get("s1", "checkpoint/main")["summary"] == exact


def test_p54_folds_below_covered_through_become_compressed_but_stay_readable() -> None:
    protocol = resolve("unified", 1)
    store = MemoryStore()
    b = SessionBuilder(store)
    b.user("go")
    b.exchange("lookup", {"q": 1}, {"rows": ["budget 40k"]})
    b.exchange("lookup", {"q": 2}, {"rows": ["venue"]})
    texts(b, 5)
    create = ToolCall(id="fc", name="context_fold_create",
                      arguments=json.dumps({"fromIndex": 2, "throughIndex": 5, "summary": "two lookups",
                                                 "purpose": "shorten"}))
    created = protocol.dispatch(store, "s1", create, b.frozen())
    assert created["success"], created
    result = maintain(protocol, store, Recorder(), keep_recent_groups=2)
    fold_id = next(iter(store.kv_prefix("s1", "fold/"))).removeprefix("fold/")
    assert result.through_index == 8 and result.compressed_folds == (fold_id,)
    list_call = ToolCall(id="fl", name="context_fold_list", arguments='{"purpose": "check"}')
    listed = protocol.dispatch(store, "s1", list_call, b.frozen())
    assert [f["compressed"] for f in listed["folds"]] == [True]
    read_call = ToolCall(id="fr", name="context_fold_read", arguments=json.dumps({"foldId": fold_id, "purpose": "r"}))
    read = protocol.dispatch(store, "s1", read_call, b.frozen())
    assert read["success"] and "budget 40k" in json.dumps(read)


def test_nothing_to_do_writes_nothing() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    recorder = Recorder()
    assert maintain(resolve("unified", 1), store, recorder).reason == "no_uncovered_history"
    texts(b, 4)
    assert maintain(resolve("unified", 1), store, recorder, keep_recent_groups=4).reason == "no_boundary"
    assert recorder.requests == [] and store.revision("s1") == 0 and store.kv_all("s1") == {"activeWindow": "main"}


def test_upper_bound_limits_the_range_to_what_the_frozen_view_saw() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 10)
    result = maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=1, upper_bound=5)
    assert result.through_index == 4


def test_p90_prefix_v2_compresses_its_one_history_main() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 6)
    protocol = resolve("prefix", 2)
    assert maintain(protocol, store, Recorder(), keep_recent_groups=2).through_index == 4
    with pytest.raises(InvalidInput, match="one history"):
        maintain(protocol, store, Recorder(), window="alpha")


def test_a_malformed_checkpoint_record_is_an_input_error_not_a_traceback() -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    texts(b, 6)
    store.commit("s1", 0, {"checkpoint/main": {"coveredThrough": 2}})
    with pytest.raises(InvalidInput, match="checkpoint/main"):
        maintain(resolve("unified", 1), store, Recorder())


def test_p1_raw_messages_are_untouched_by_maintenance() -> None:
    """The maintainer never rewrites raw messages (P-1): every message reads back identical."""
    store = MemoryStore()
    b = SessionBuilder(store)
    b.call("t", frozen=FrozenView(revision=0, upper_bound=0, run_id=b.run_id))
    b.result("c1", "ok")
    texts(b, 5)
    before = [m.wire() for m in store.all_messages("s1")]
    maintain(resolve("unified", 1), store, Recorder(), keep_recent_groups=1)
    assert [m.wire() for m in store.all_messages("s1")] == before
