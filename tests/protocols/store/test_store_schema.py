"""A store written before the second migration (sessions with ``max_index``, AUTOINCREMENT receipts and snapshots)
opened by today's store: the same messages, last indexes, revisions, receipts and snapshots in write order, and
the next append, receipt and snapshot follow them (E-8, E-10, E-11, E-12)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from protocols import MessageDraft
from protocols.store import SqliteStore
from protocols.store._body import written
from protocols.store._schema import MIGRATIONS

RUN = "0123456789abcdef0123456789abcdef"


def _draft(n: int, window: str = "main") -> MessageDraft:
    return MessageDraft(run_id=RUN, window_id=window, role="user", kind="input", content=f"q{n}", input_run=RUN)


def _old_store(path: Path) -> None:
    """What the first migration's schema held after a few writes, written by its own statements."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    for session, count, revision in (("a", 3, 2), ("b", 5, 0)):
        db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (session, revision, count))
        for index in range(1, count + 1):
            msg, body = written(_draft(index, "w1" if index % 2 else "main"), f"m{index}", index)
            tier = "messages_cold" if index <= 2 else "messages"  # the first two archived (E-12)
            db.execute(f"INSERT INTO {tier} VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (session, index, msg.id, msg.window_id, msg.run_id, msg.kind, body))
    for session, call in (("b", "c1"), ("a", "c1"), ("b", "c0")):
        db.execute("INSERT INTO receipts (session, call_id, value) VALUES (?, ?, ?)", (session, call, f'"{call}"'))
    for session, snapshot in (("a", "a/1"), ("b", "b/1"), ("a", "a/2")):
        db.execute("INSERT INTO snapshots (session, snapshot_id, data) VALUES (?, ?, '{}')", (session, snapshot))
    db.execute("COMMIT")
    db.close()


def test_a_store_of_the_first_schema_reads_and_continues_the_same(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_store(path)
    with SqliteStore(path) as store:
        assert [store.max_index(s) for s in "ab"] == [3, 5]
        assert [store.revision(s) for s in "ab"] == [2, 0]
        assert [m.index for m in store.all_messages("b")] == [1, 2, 3, 4, 5]
        assert [m.content for m in store.window_messages("b", "w1", 0, 5)] == ["q1", "q3", "q5"]
        assert list(store.receipts("b")) == ["c1", "c0"] and store.receipt("a", "c1") == "c1"
        assert [sid for sid, _ in store.snapshot_texts("a")] == ["a/1", "a/2"]
        assert store.append("a", _draft(4)).index == 4
        store.put_receipt("b", "c2", "c2")
        store.put_snapshot_json("a", "a/3", "{}")
        assert store.commit("a", 2, {"taskMemory": "t"}) == 3
    with SqliteStore(path) as fresh:  # what the file holds, read by a store that kept nothing
        assert [fresh.max_index(s) for s in "ab"] == [4, 5] and fresh.revision("a") == 3
        assert list(fresh.receipts("b")) == ["c1", "c0", "c2"]
        assert [sid for sid, _ in fresh.snapshot_texts("a")] == ["a/1", "a/2", "a/3"]
        assert fresh.append("b", _draft(6)).index == 6
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert [r[1] for r in db.execute("PRAGMA table_info(sessions)")] == ["id", "revision"]


def test_the_last_index_is_the_largest_of_both_tiers_after_an_archive(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "s.sqlite") as store:
        store.create_session("s")
        for n in range(1, 5):
            store.append("s", _draft(n))
        assert store.archive("s", 4) == 4  # every message in the cold tier: the hot one is empty
    with SqliteStore(tmp_path / "s.sqlite") as fresh:
        assert fresh.max_index("s") == 4
        assert fresh.append("s", _draft(5)).index == 5
