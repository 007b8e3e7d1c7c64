"""Store contract, raw messages (E-8, E-10, P-1, P-2, P-4), for every backend."""

from __future__ import annotations

import threading

import pytest

from protocols import MessageDraft, StoreError, new_run_id
from protocols.store import SessionStore
from tests.helpers.builders import SessionBuilder


def _draft(run_id: str, window: str = "main", text: str = "hi", **extra: object) -> MessageDraft:
    return MessageDraft(run_id=run_id, window_id=window, role="assistant", kind="text", content=text, **extra)


def test_e10_indexes_start_at_1_and_ids_default_to_m_index(store: SessionStore) -> None:
    b = SessionBuilder(store)
    first = b.user("hello")
    second = b.text("hi")
    assert (first.index, first.id, second.index, second.id) == (1, "m1", 2, "m2")
    assert store.max_index("s1") == 2
    assert store.all_messages("s1") == [first, second]


def test_p2_given_message_id_is_kept_and_must_be_unique(store: SessionStore) -> None:
    store.create_session("s1")
    run = new_run_id()
    msg = store.append("s1", _draft(run, id="custom"))
    assert msg.id == "custom"
    with pytest.raises(StoreError, match="already exists"):
        store.append("s1", _draft(run, id="custom"))
    assert store.max_index("s1") == 1  # the refused write allocated nothing: still gapless


def test_e8_messages_round_trip_every_field(store: SessionStore) -> None:
    b = SessionBuilder(store)
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    written = [
        b.user("ünïcode ✓ 🚀"),
        store.append("s1", MessageDraft(run_id=b.run_id, window_id="main", role="user", kind="input",
                                        content=parts, input_run=b.run_id)),
        b.call("context_task_memory_set", {"text": "x"}, frozen=b.frozen()),
        b.result("c1", {"success": True}),
    ]
    assert store.all_messages("s1") == written
    assert [m.wire() for m in store.all_messages("s1")] == [m.wire() for m in written]


def test_p4_window_messages_filter_window_and_range(store: SessionStore) -> None:
    b = SessionBuilder(store)
    for i in range(1, 11):
        b.window = "alpha" if i % 2 else "beta"
        b.text(f"t{i}")
    alpha = store.window_messages("s1", "alpha", 0, 10)
    assert [m.index for m in alpha] == [1, 3, 5, 7, 9]
    assert [m.index for m in store.window_messages("s1", "alpha", 3, 7)] == [5, 7]
    assert [m.index for m in store.window_messages("s1", "beta", 2, 10, limit=2)] == [4, 6]
    assert store.window_messages("s1", "gamma", 0, 10) == []


def test_p11_run_inputs_are_the_runs_user_inputs_in_any_window(store: SessionStore) -> None:
    b = SessionBuilder(store)
    first_run = b.run_id
    b.user("a")
    b.window = "beta"
    b.user("b")
    b.user("feedback", kind="approval_feedback")
    b.text("answer")
    b.new_run()
    b.user("c")
    got = store.run_inputs("s1", first_run, 10)
    assert [(m.index, m.window_id) for m in got] == [(1, "main"), (2, "beta")]
    assert [m.index for m in store.run_inputs("s1", first_run, 1)] == [1]
    assert [m.index for m in store.run_inputs("s1", b.run_id, 10)] == [5]


def test_messages_by_ids_keeps_the_order_asked_and_skips_unknown(store: SessionStore) -> None:
    b = SessionBuilder(store)
    for i in range(4):
        b.text(f"t{i}")
    got = store.messages_by_ids("s1", ["m3", "nope", "m1"])
    assert [m.id for m in got] == ["m3", "m1"]


def test_message_by_call_id_finds_the_calling_message(store: SessionStore) -> None:
    b = SessionBuilder(store)
    call, _ = b.exchange("context_fold_list")
    assert store.message_by_call_id("s1", "c1") == call
    assert store.message_by_call_id("s1", "missing") is None


def test_search_is_case_insensitive_by_index_bounded_and_limited(store: SessionStore) -> None:
    b = SessionBuilder(store)
    b.text("Budget is 40k")
    b.window = "beta"
    b.text("the BUDGET moved")
    b.text("schedule")
    b.window = "main"
    b.text("budget again")
    assert [m.index for m in store.search("s1", "budget", None, 4, 10)] == [1, 2, 4]
    assert [m.index for m in store.search("s1", "budget", "beta", 4, 10)] == [2]
    assert [m.index for m in store.search("s1", "budget", None, 3, 10)] == [1, 2]
    assert [m.index for m in store.search("s1", "budget", None, 4, 1)] == [1]


def test_unknown_session_is_a_store_error(store: SessionStore) -> None:
    assert not store.has_session("ghost")
    for call in (lambda: store.max_index("ghost"), lambda: store.revision("ghost"),
                 lambda: store.window_messages("ghost", "main", 0, 5), lambda: store.kv_get("ghost", "k"),
                 lambda: store.append("ghost", _draft(new_run_id()))):
        with pytest.raises(StoreError, match="unknown session"):
            call()


def test_sessions_are_isolated_and_unique(store: SessionStore) -> None:
    SessionBuilder(store, "a").text("in a")
    SessionBuilder(store, "b")
    assert store.has_session("a") and store.has_session("b")
    assert store.max_index("b") == 0 and store.all_messages("b") == []
    with pytest.raises(StoreError, match="already exists"):
        store.create_session("a")


def test_e10_concurrent_writers_get_gapless_indexes(store: SessionStore) -> None:
    """E-10: threads appending to one session at once get 1..N, each index exactly once."""
    store.create_session("s1")
    run = new_run_id()
    threads_n, per_thread = 8, 25
    got: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(threads_n)

    def writer(t: int) -> None:
        start.wait()
        for i in range(per_thread):
            msg = store.append("s1", _draft(run, window=f"w{t}", text=f"{t}-{i}"))
            with lock:
                got.append(msg.index)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = threads_n * per_thread
    assert sorted(got) == list(range(1, total + 1))
    assert [m.index for m in store.all_messages("s1")] == list(range(1, total + 1))
    # each writer's own messages are in its write order
    for t in range(threads_n):
        texts = [m.content for m in store.window_messages("s1", f"w{t}", 0, total)]
        assert texts == [f"{t}-{i}" for i in range(per_thread)]
