"""Store contract, cold tier (E-12): archived messages read exactly as before, for every backend."""

from __future__ import annotations

import pytest

from protocols import MessageDraft, StoreError
from protocols.store import SessionStore
from tests.helpers.builders import SessionBuilder


def _session(store: SessionStore) -> SessionBuilder:
    b = SessionBuilder(store)
    b.user("plan the offsite")
    b.exchange("context_window_open", {"windowId": "alpha"})
    b.window = "alpha"
    b.text("alpha work with Budget")
    b.exchange("context_fold_list")
    b.window = "beta"
    b.text("beta work")
    b.window = "alpha"
    b.new_run()
    b.user("next budget question")
    b.text("answer")
    return b


def _reads(store: SessionStore, run_id: str) -> dict[str, object]:
    return {
        "all": [m.wire() for m in store.all_messages("s1")],
        "alpha": store.window_messages("s1", "alpha", 0, 100),
        "alpha_page": store.window_messages("s1", "alpha", 2, 100, limit=3),
        "main": store.window_messages("s1", "main", 1, 3),
        "inputs": store.run_inputs("s1", run_id, 100),
        "ids": store.messages_by_ids("s1", ["m9", "m2", "m6"]),
        "calls": [store.message_by_call_id("s1", c) for c in ("c1", "c2")],
        "search": store.search("s1", "budget", None, 100, 10),
        "search_alpha": store.search("s1", "work", "alpha", 100, 10),
        "max": store.max_index("s1"),
    }


def test_e12_reads_merge_cold_and_hot_transparently(store: SessionStore) -> None:
    b = _session(store)
    before = _reads(store, b.run_id)
    assert store.archive("s1", 5) == 5
    assert _reads(store, b.run_id) == before


def test_e12_archive_moves_only_hot_messages_once(store: SessionStore) -> None:
    b = _session(store)
    before = _reads(store, b.run_id)
    assert store.archive("s1", 3) == 3
    assert store.archive("s1", 3) == 0  # already cold
    assert store.archive("s1", 6) == 3
    assert store.archive("s1", 100) == store.max_index("s1") - 6
    assert _reads(store, b.run_id) == before


def test_e12_writes_after_archive_continue_the_gapless_index(store: SessionStore) -> None:
    b = _session(store)
    store.archive("s1", store.max_index("s1"))
    msg = b.text("after archive")
    assert msg.index == 10
    assert [m.index for m in store.all_messages("s1")] == list(range(1, 11))
    assert [m.index for m in store.window_messages("s1", "alpha", 0, 10)] == [4, 5, 6, 8, 9, 10]


def test_e12_an_archived_message_id_stays_taken(store: SessionStore) -> None:
    b = _session(store)
    store.archive("s1", 9)
    with pytest.raises(StoreError, match="already exists"):
        store.append("s1", MessageDraft(run_id=b.run_id, window_id="alpha", role="assistant", kind="text",
                                        content="dup", id="m3"))
    assert store.max_index("s1") == 9
