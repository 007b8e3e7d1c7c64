"""Store contract, KV, receipts and snapshots (E-8, E-9, P-6, P-7, P-9, P-42), for every backend."""

from __future__ import annotations

import json
import threading

import pytest

from protocols import KvLimitExceeded, KvLimits, MessageDraft, RevisionConflict, StoreError, new_run_id
from protocols.store import SessionStore


def test_p6_every_commit_adds_one_to_the_revision(store: SessionStore) -> None:
    store.create_session("s1", {"activeWindow": "main"})
    assert store.revision("s1") == 0
    assert store.commit("s1", 0, {"taskMemory": "goal"}) == 1
    assert store.commit("s1", 1, {}) == 2  # an empty transaction still commits
    assert store.revision("s1") == 2
    assert store.kv_all("s1") == {"activeWindow": "main", "taskMemory": "goal"}


def test_e9_commit_applies_sets_deletes_and_receipt_together(store: SessionStore) -> None:
    store.create_session("s1", {"activeWindow": "main", "taskMemory": "old"})
    value = {"summary": "s", "coveredThrough": 3, "nested": [1, {"x": None}], "ü": "✓"}
    rev = store.commit("s1", 0, {"taskMemory": None, "checkpoint/main": value}, ("c1", {"success": True}))
    assert rev == 1
    assert store.kv_get("s1", "taskMemory") is None
    assert store.kv_get("s1", "checkpoint/main") == value
    assert store.receipt("s1", "c1") == {"success": True}


def test_e9_revision_conflict_changes_nothing(store: SessionStore) -> None:
    store.create_session("s1", {"taskMemory": "old"})
    store.commit("s1", 0, {"taskMemory": "new"})
    with pytest.raises(RevisionConflict) as err:
        store.commit("s1", 0, {"taskMemory": "stale"}, ("c9", {"success": True}))
    assert (err.value.expected, err.value.current) == (0, 1)
    assert store.revision("s1") == 1
    assert store.kv_get("s1", "taskMemory") == "new"
    assert store.receipt("s1", "c9") is None


def test_e9_a_second_receipt_for_one_call_is_refused_atomically(store: SessionStore) -> None:
    store.create_session("s1")
    store.commit("s1", 0, {"a": 1}, ("c1", {"n": 1}))
    with pytest.raises(StoreError, match="receipt"):
        store.commit("s1", 1, {"a": 2}, ("c1", {"n": 2}))
    assert (store.revision("s1"), store.kv_get("s1", "a"), store.receipt("s1", "c1")) == (1, 1, {"n": 1})


@pytest.mark.parametrize("changes", [
    {"big": "x" * 200},             # value over the byte limit
    {"k3": 1, "k4": 2},             # key count over the limit
    {"k1": None, "k3": 1, "k4": 2, "k5": 3},  # one delete does not make room for three keys
])
def test_p7_kv_limit_exceeded_changes_nothing(store: SessionStore, changes: dict[str, object]) -> None:
    store.limits = KvLimits(max_keys=3, max_value_bytes=100)
    store.create_session("s1", {"k1": "a", "k2": "b"})
    before = store.kv_all("s1")
    with pytest.raises(KvLimitExceeded) as err:
        store.commit("s1", 0, changes, ("c1", {"success": True}))
    assert err.value.code == "kv_limit_exceeded"
    assert store.kv_all("s1") == before
    assert store.revision("s1") == 0
    assert store.receipt("s1", "c1") is None


def test_p7_limits_count_utf8_bytes_and_allow_the_exact_limit(store: SessionStore) -> None:
    store.limits = KvLimits(max_keys=2, max_value_bytes=10)
    store.create_session("s1")
    store.commit("s1", 0, {"a": "ééé", "b": "12345678"})  # '"ééé"' is 8 bytes; '"12345678"' is 10
    with pytest.raises(KvLimitExceeded):
        store.commit("s1", 1, {"a": "éééé!"})  # 9 bytes of text + 2 quotes = 11
    store.commit("s1", 1, {"a": None, "c": 1})  # deleting makes room for another key
    assert store.kv_all("s1") == {"b": "12345678", "c": 1}


def test_p7_seeding_a_session_respects_the_limits(store: SessionStore) -> None:
    store.limits = KvLimits(max_keys=1)
    with pytest.raises(KvLimitExceeded):
        store.create_session("s1", {"a": 1, "b": 2})
    assert not store.has_session("s1")


def test_create_session_seeds_kv_revision_and_receipts(store: SessionStore) -> None:
    store.create_session("s1", {"b": 2, "a": None, "coveredThrough/main": 4}, revision=7,
                         receipts={"c2": {"x": 1}, "c1": {"y": 2}})
    assert store.revision("s1") == 7
    assert store.kv_all("s1") == {"b": 2, "coveredThrough/main": 4}
    assert store.receipts("s1") == {"c2": {"x": 1}, "c1": {"y": 2}}
    assert list(store.receipts("s1")) == ["c2", "c1"]  # insertion order, as written


def test_kv_prefix_returns_sorted_keys_with_that_prefix(store: SessionStore) -> None:
    store.create_session("s1", {"fold/f2": 2, "fold/f10": 10, "folder": 0, "window/a": {}, "fold/é": 3})
    got = store.kv_prefix("s1", "fold/")
    assert list(got) == sorted(["fold/f2", "fold/f10", "fold/é"])
    assert list(store.kv_all("s1")) == sorted(["fold/f2", "fold/f10", "folder", "window/a", "fold/é"])


def test_kv_reads_are_copies(store: SessionStore) -> None:
    store.create_session("s1", {"window/a": {"results": ["r1"]}})
    got = store.kv_get("s1", "window/a")
    got["results"].append("mutated")
    assert store.kv_get("s1", "window/a") == {"results": ["r1"]}


def test_p42_put_receipt_is_insert_if_absent_without_a_revision(store: SessionStore) -> None:
    store.create_session("s1")
    assert store.put_receipt("s1", "c1", {"success": False, "error": {"code": "x"}}) == {
        "success": False, "error": {"code": "x"}}
    assert store.put_receipt("s1", "c1", {"success": True}) == {"success": False, "error": {"code": "x"}}
    assert store.revision("s1") == 0
    assert store.receipts("s1") == {"c1": {"success": False, "error": {"code": "x"}}}


def test_e11_snapshots_come_back_in_write_order(store: SessionStore) -> None:
    store.create_session("s1")
    store.create_session("s2")
    for sid in ("z", "a", "m"):
        store.put_snapshot("s1", sid, {"request": {"messages": [sid]}, "latency": 0.5})
    store.put_snapshot("s2", "other", {})
    assert store.snapshots("s1") == [(s, {"request": {"messages": [s]}, "latency": 0.5}) for s in "zam"]
    assert store.snapshots("s2") == [("other", {})]
    assert store.snapshot_texts("s1") == [(s, json.dumps({"request": {"messages": [s]}, "latency": 0.5}))
                                          for s in "zam"]


def test_e11_a_snapshot_written_as_text_reads_back_as_that_text_and_its_value(store: SessionStore) -> None:
    store.create_session("s1")
    text = json.dumps({"request": {"messages": ["é", {"k": None}]}, "n": 1.5}, ensure_ascii=False)
    store.put_snapshot_json("s1", "one", text)
    assert store.snapshot_texts("s1") == [("one", text)]
    assert store.snapshots("s1") == [("one", json.loads(text))]


def test_e11_a_snapshot_and_its_answer_are_written_together(store: SessionStore) -> None:
    """``append_after_snapshot``: the call's snapshot, then its answer (one transaction where the backend has
    them); a refused message still leaves the snapshot written, as writing it first always did."""
    store.create_session("s1")
    run = new_run_id()
    draft = MessageDraft(run_id=run, window_id="main", role="assistant", kind="text", content="answer")
    msg = store.append_after_snapshot("s1", "s1/1", '{"seq": 1, "request": {"messages": []}}', draft)
    assert (msg.index, msg.id, msg.content) == (1, "m1", "answer")
    assert store.snapshots("s1") == [("s1/1", {"seq": 1, "request": {"messages": []}})]
    taken = MessageDraft(run_id=run, window_id="main", role="assistant", kind="text", content="again", id="m1")
    with pytest.raises(StoreError, match="already exists"):
        store.append_after_snapshot("s1", "s1/2", '{"seq": 2}', taken)
    assert store.snapshots("s1") == [("s1/1", {"seq": 1, "request": {"messages": []}}), ("s1/2", {"seq": 2})]
    assert store.max_index("s1") == 1


def test_e9_concurrent_commits_from_one_revision_only_one_wins(store: SessionStore) -> None:
    store.create_session("s1")
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def writer(n: int) -> None:
        barrier.wait()
        try:
            store.commit("s1", 0, {"winner": n})
            outcomes.append(f"won{n}")
        except RevisionConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o.startswith("won")]
    assert len(winners) == 1 and outcomes.count("conflict") == 5
    assert store.revision("s1") == 1
    assert f"won{store.kv_get('s1', 'winner')}" == winners[0]
