"""SQLite store (E-8): durable, used for resume; the same semantics as ``MemoryStore``.

One connection shared by every thread (``check_same_thread=False``) behind one lock, so the
process's writers are serialised; every write runs in ``BEGIN IMMEDIATE`` so that two stores
opened on the same file also allocate indexes atomically and gaplessly (E-10). File databases use
WAL. Raw messages are kept as their JSON body (``_body``: ``.wire()``) and re-validated on read; KV values,
receipts and snapshots are JSON text.

A store keeps what it read or wrote of each session's row (revision, last index) and KV values, as
it keeps windows, while no other connection writes to the file (``_kept``).

Messages live in two tiers with the same shape (``_schema``): ``messages`` (hot) and ``messages_cold``;
``archive`` moves rows between them in one transaction and every read merges both (E-12). Each
tier has a (session, window, index) index so ``window_messages`` reads only the window's range,
never the whole session (Q-1); a session's last index is the largest of its tiers', so an append writes
no other row than its own.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._errors import RevisionConflict, StoreError
from .._messages import MessageDraft, RawMessage
from .._state import KvLimits
from .._text import json_text
from ._base import JsonValue, KvChanges, SessionStore
from ._body import as_read, message, remember, written
from ._kept import Kept
from ._schema import MIGRATIONS, TIERS

_ROW = "SELECT revision, max({}) FROM sessions WHERE id = ?1".format(
    ", ".join(f"coalesce((SELECT max(idx) FROM {t} WHERE session = ?1), 0)" for t in TIERS))
_ID_TAKEN = " UNION ALL ".join(f"SELECT 1 FROM {t} WHERE session = ? AND id = ?" for t in TIERS)


def _dumps(value: JsonValue) -> str:
    return json_text(value)


_WINDOWS_MAX = 128
"""Windows whose messages a store keeps (``SqliteStore._window_prefix``), per store."""
_GROWN_MAX = 4096
"""A window kept as its messages are appended stops being kept beyond this many (it is read again, once)."""
_OWN_MAX = 4096
"""Sessions a store follows as their only writer (``SqliteStore._own``), per store."""


def _merged(where: str, index: str | None = None, limit: bool = False) -> str:
    """A read over both tiers: the same filter on each, merged by message index.

    ``index`` names the per-tier index to use (``by_window``, ``inputs``): without ``INDEXED BY``
    SQLite may prefer the (session, idx) primary key and walk every window's messages in the
    range, which is what Q-1 forbids. With ``limit`` each tier stops after that many rows (one
    more ``?`` per tier and one for the merge).
    """
    parts = []
    for t in TIERS:
        source = f"{t} INDEXED BY {t}_{index}" if index else t
        inner = f"SELECT idx, body FROM {source} WHERE {where} ORDER BY idx" + (" LIMIT ?" if limit else "")
        parts.append(f"SELECT * FROM ({inner})")
    return f"{parts[0]} UNION ALL {parts[1]} ORDER BY idx" + (" LIMIT ?" if limit else "")


class SqliteStore(SessionStore):
    def __init__(self, path: str | Path = ":memory:", limits: KvLimits | None = None) -> None:
        self.limits = limits or KvLimits()
        self.path = str(path)
        self._lock = threading.RLock()
        self._sessions: set[str] = set()
        self._windows: dict[tuple[str, str, int], tuple[int, list[RawMessage]]] = {}
        self._session_windows: dict[str, dict[tuple[str, str, int], None]] = {}
        """The keys of ``_windows`` by session (an append looks at its session's only)."""
        self._own: dict[str, int] = {}
        """Sessions this store created and has been the only writer of since, with their last index: each of
        their windows is kept from the start as its messages are appended (``_appended``)."""
        self._own_inputs: dict[str, dict[str, list[RawMessage]]] = {}
        """An own session's input messages by run, each appended here (``run_inputs``)."""
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across process crashes
        self._kept = Kept(self._db, private=self.path == ":memory:")
        self._migrate()

    def _migrate(self) -> None:
        with self._write() as db:
            done = db.execute("PRAGMA user_version").fetchone()[0]
            for n, migration in enumerate(MIGRATIONS[done:], start=done + 1):
                migration(db)
                db.execute(f"PRAGMA user_version = {n}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # transactions ---------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write transaction (E-9), holding the database's write lock."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def _row(self, db: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        """The session's revision and last index (the largest of its tiers': ``_schema``)."""
        row = db.execute(_ROW, (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"unknown session {session_id!r}")
        return int(row[0]), int(row[1])

    def _exists(self, db: sqlite3.Connection, session_id: str) -> None:
        if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise StoreError(f"unknown session {session_id!r}")

    def _read(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def _known(self, session_id: str) -> None:
        # sessions are never deleted: one seen is known for good (a read checks it before every query)
        if session_id in self._sessions:
            return
        with self._lock:
            self._exists(self._db, session_id)
        self._sessions.add(session_id)

    # sessions -------------------------------------------------------------------------------
    def create_session(
        self,
        session_id: str,
        kv: Mapping[str, JsonValue] | None = None,
        revision: int = 0,
        receipts: Mapping[str, JsonValue] | None = None,
    ) -> None:
        with self._lock:
            self._create(session_id, kv, revision, receipts)
            self._kept.wrote(session_id, (revision, 0), kv=True)
            if len(self._own) >= _OWN_MAX:  # the oldest goes first (its windows are read as before)
                self._disown(next(iter(self._own)))
            self._own[session_id] = 0
            self._own_inputs[session_id] = {}

    def _create(self, session_id: str, kv: Mapping[str, JsonValue] | None, revision: int,
                receipts: Mapping[str, JsonValue] | None) -> None:
        with self._write() as db:
            if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                raise StoreError(f"session {session_id!r} already exists")
            if kv:
                self._check_limits(set(), kv)
            db.execute("INSERT INTO sessions VALUES (?, ?)", (session_id, revision))
            db.executemany(
                "INSERT INTO kv VALUES (?, ?, ?)",
                [(session_id, k, _dumps(v)) for k, v in (kv or {}).items() if v is not None],
            )
            db.executemany(
                "INSERT INTO receipts (session, call_id, value) VALUES (?, ?, ?)",
                [(session_id, k, _dumps(v)) for k, v in (receipts or {}).items()],
            )

    def has_session(self, session_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM sessions WHERE id = ?", (session_id,)))

    # messages -------------------------------------------------------------------------------
    def append(self, session_id: str, draft: MessageDraft) -> RawMessage:
        with self._lock:
            with self._write() as db:
                msg, body, revision = self._insert_message(db, session_id, draft)
            self._appended(session_id, as_read(msg, body), body)  # after the commit: a rolled-back row is never read
            self._kept.wrote(session_id, (revision, msg.index))
        return msg

    def append_after_snapshot(self, session_id: str, snapshot_id: str, text: str, draft: MessageDraft) -> RawMessage:
        """Both in one transaction, the snapshot first (E-9: all or nothing; one commit where there were two,
        Q-2). Should the message be refused, the snapshot is written alone, as it would have been before."""
        with self._lock:
            try:
                with self._write() as db:
                    db.execute("INSERT INTO snapshots (session, snapshot_id, data) VALUES (?, ?, ?)",
                               (session_id, snapshot_id, text))  # the message's row check covers the session
                    msg, body, revision = self._insert_message(db, session_id, draft)
            except Exception:
                self.put_snapshot_json(session_id, snapshot_id, text)
                raise
            self._appended(session_id, as_read(msg, body), body)
            self._kept.wrote(session_id, (revision, msg.index))
        return msg

    def _appended(self, session_id: str, msg: RawMessage, body: str) -> None:
        """A committed append, as a read of its row gives it: decoded (``_body.remember``), and added to every kept
        window of the session that was read up to the index before it (no other row can lie between), so the
        next step reads no rows. A session this store created and alone wrote since is kept from its start:
        a window's first message starts its kept messages (every earlier one was appended here, to another
        window); another writer's row (a gap in the indexes) ends that."""
        remember(body, msg)
        index, window = msg.index, msg.window_id
        for key in list(self._session_windows.get(session_id, ())):
            seen, kept = self._windows[key]
            if seen != index - 1:
                continue
            if key[1] == window and index > key[2]:
                if len(kept) >= _GROWN_MAX:  # read again when next needed
                    self._drop(key)
                    self._disown(session_id)
                    continue
                kept.append(msg)
            self._windows[key] = (index, kept)
        own = self._own.get(session_id)
        if own is None:
            return
        if own != index - 1:  # another store wrote to the session
            self._disown(session_id)
            return
        self._own[session_id] = index
        if msg.kind == "input":
            self._own_inputs[session_id].setdefault(msg.run_id, []).append(msg)
        if (session_id, window, 0) not in self._windows:
            self._keep((session_id, window, 0), (index, [msg]))

    def _keep(self, key: tuple[str, str, int], value: tuple[int, list[RawMessage]]) -> None:
        if key not in self._windows:
            if len(self._windows) >= _WINDOWS_MAX:  # the oldest goes first
                oldest = next(iter(self._windows))
                self._drop(oldest)
                self._disown(oldest[0])  # a window of it is no longer kept from the start
            self._session_windows.setdefault(key[0], {})[key] = None
        self._windows[key] = value

    def _disown(self, session_id: str) -> None:
        self._own.pop(session_id, None)
        self._own_inputs.pop(session_id, None)

    def _drop(self, key: tuple[str, str, int]) -> None:
        del self._windows[key]
        keys = self._session_windows[key[0]]
        del keys[key]
        if not keys:
            del self._session_windows[key[0]]

    def _insert_message(self, db: sqlite3.Connection, session_id: str,
                        draft: MessageDraft) -> tuple[RawMessage, str, int]:
        """The message written, its body and the session's revision (unchanged by an append)."""
        revision, index = self._row(db, session_id)
        index += 1
        msg_id = draft.id or f"m{index}"
        if db.execute(_ID_TAKEN, (session_id, msg_id, session_id, msg_id)).fetchone():
            raise StoreError(f"message id {msg_id!r} already exists in session {session_id!r}")
        msg, body = written(draft, msg_id, index)  # validated (P-1, P-2)
        db.execute(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, index, msg_id, msg.window_id, msg.run_id, msg.kind, body),
        )
        if msg.tool_calls:
            db.executemany(
                "INSERT OR IGNORE INTO tool_calls VALUES (?, ?, ?)",
                [(session_id, call.id, index) for call in msg.tool_calls],
            )
        return msg, body, revision

    def max_index(self, session_id: str) -> int:
        with self._lock:
            return self._kept_row(session_id)[1]

    def _kept_row(self, session_id: str) -> tuple[int, int]:
        return self._kept.row(session_id, lambda: self._row(self._db, session_id))

    def window_messages(
        self, session_id: str, window_id: str, after_index: int, upper_bound: int, limit: int | None = None
    ) -> list[RawMessage]:
        where = "session = ? AND window = ? AND idx > ? AND idx <= ?"
        params: list[Any] = [session_id, window_id, after_index, upper_bound]
        with self._lock:
            self._known(session_id)
            if limit is not None:  # a page never reads past its own rows
                sql = _merged(where, "by_window", limit=True)
                rows = self._db.execute(sql, [*params, limit, *params, limit, limit]).fetchall()
                return [message(body) for _, body in rows]
            return list(self._window_prefix(session_id, window_id, after_index, upper_bound))

    def _window_prefix(self, session_id: str, window_id: str, after_index: int,
                       upper_bound: int) -> list[RawMessage]:
        """A window's messages in (``after_index``, ``upper_bound``], read once (Q-2: each step projects the
        window again). Rows at or below the session's last index never change (P-1: immutable, indices
        only grow; archiving moves a row between the tiers this reads, never out of them), so the messages
        read up to that index are kept and a later read of the same window fetches only the rows after it
        (none when this store appended them: ``_appended``). The caller copies what it is given."""
        key = (session_id, window_id, after_index)
        seen, kept = self._windows.get(key, (after_index, []))
        if upper_bound < seen:  # an older frozen view: the kept messages up to its bound
            return [m for m in kept if m.index <= upper_bound]
        if upper_bound == seen:
            return kept
        # every row at or below the last index read now was written (committed) with it, so the rows
        # read after it hold all of them: only that far is kept
        last = min(upper_bound, self._kept_row(session_id)[1])
        where = "session = ? AND window = ? AND idx > ? AND idx <= ?"
        rows = self._db.execute(_merged(where, "by_window"), [session_id, window_id, seen, upper_bound] * 2).fetchall()
        out = [*kept, *[message(body) for _, body in rows]]
        if last > seen:
            self._keep(key, (last, [m for m in out if m.index <= last] if last < upper_bound else out))
        return out

    def run_inputs(self, session_id: str, run_id: str, upper_bound: int) -> list[RawMessage]:
        """Read from the file, or, for a session this store alone wrote up to ``upper_bound`` (``_own``: every row
        up to its last index was appended here, in index order), its inputs as they were appended (Q-2: each step
        asks; a read of those rows gives the same messages, ``_appended``)."""
        where = "session = ? AND run = ? AND kind = 'input' AND idx <= ?"  # matches the partial index
        with self._lock:
            self._known(session_id)
            own = self._own.get(session_id)
            if own is not None and upper_bound <= own:
                return [m for m in self._own_inputs[session_id].get(run_id, ()) if m.index <= upper_bound]
            params = [session_id, run_id, upper_bound]
            rows = self._db.execute(_merged(where, "inputs"), params * 2).fetchall()
        return [message(body) for _, body in rows]

    def messages_by_ids(self, session_id: str, ids: Sequence[str]) -> list[RawMessage]:
        with self._lock:
            self._known(session_id)
            found: dict[str, RawMessage] = {}
            for tier in TIERS:
                for start in range(0, len(ids), 500):
                    chunk = list(ids[start : start + 500])
                    marks = ",".join("?" * len(chunk))
                    sql = f"SELECT body FROM {tier} WHERE session = ? AND id IN ({marks})"
                    for (body,) in self._db.execute(sql, [session_id, *chunk]):
                        msg = message(body)
                        found[msg.id] = msg
        return [found[i] for i in ids if i in found]

    def message_at(self, session_id: str, index: int) -> RawMessage | None:
        with self._lock:
            self._known(session_id)
            rows = self._db.execute(_merged("session = ? AND idx = ?"), [session_id, index] * 2).fetchall()
        return message(rows[0][1]) if rows else None

    def message_by_call_id(self, session_id: str, call_id: str) -> RawMessage | None:
        with self._lock:
            self._known(session_id)
            row = self._db.execute(
                "SELECT idx FROM tool_calls WHERE session = ? AND call_id = ?", (session_id, call_id)
            ).fetchone()
        return None if row is None else self.message_at(session_id, row[0])

    def search(
        self, session_id: str, query: str, window_id: str | None, upper_bound: int, limit: int
    ) -> list[RawMessage]:
        needle = query.casefold()
        if window_id is None:
            where, index, params = "session = ? AND idx <= ?", None, [session_id, upper_bound]
        else:
            where, index = "session = ? AND window = ? AND idx <= ?", "by_window"
            params = [session_id, window_id, upper_bound]
        out: list[RawMessage] = []
        with self._lock:
            self._known(session_id)
            # the same case-insensitive match as MemoryStore (str.casefold), so it runs in Python
            for _, body in self._db.execute(_merged(where, index), params * 2):
                msg = message(body)
                if needle in msg.text().casefold():
                    out.append(msg)
                    if len(out) >= limit:
                        break
        return out

    def all_messages(self, session_id: str) -> list[RawMessage]:
        with self._lock:
            self._known(session_id)
            rows = self._db.execute(_merged("session = ?"), [session_id] * 2).fetchall()
        return [message(body) for _, body in rows]

    def archive(self, session_id: str, through_index: int) -> int:
        with self._write() as db:
            self._exists(db, session_id)
            db.execute(
                "INSERT INTO messages_cold SELECT * FROM messages WHERE session = ? AND idx <= ?",
                (session_id, through_index),
            )
            moved = db.execute(
                "DELETE FROM messages WHERE session = ? AND idx <= ?", (session_id, through_index)
            )
            return int(moved.rowcount)

    # KV ---------------------------------------------------------------------------------------
    def revision(self, session_id: str) -> int:
        with self._lock:
            return self._kept_row(session_id)[0]

    def kv_get(self, session_id: str, key: str) -> JsonValue | None:
        """Read once and kept until this store writes the session's KV (each step reads the same keys, Q-2)."""
        def read() -> str | None:
            row = self._db.execute("SELECT value FROM kv WHERE session = ? AND key = ?", (session_id, key)).fetchone()
            return None if row is None else str(row[0])

        with self._lock:
            self._known(session_id)
            return self._kept.value(session_id, key, read)

    def kv_get_many(self, session_id: str, keys: Sequence[str]) -> dict[str, JsonValue | None]:
        """``kv_get`` of each key, the file asked once whether another connection wrote (``Kept.values``)."""
        def read(key: str) -> str | None:
            row = self._db.execute("SELECT value FROM kv WHERE session = ? AND key = ?", (session_id, key)).fetchone()
            return None if row is None else str(row[0])

        with self._lock:
            self._known(session_id)
            return self._kept.values(session_id, keys, read)

    def kv_prefix(self, session_id: str, prefix: str) -> dict[str, JsonValue]:
        def read() -> list[tuple[str, str]]:
            sql = "SELECT key, value FROM kv WHERE session = ? AND substr(key, 1, ?) = ?"
            return list(self._db.execute(sql, (session_id, len(prefix), prefix)).fetchall())

        with self._lock:
            self._known(session_id)
            return self._kept.prefix(session_id, prefix, read)

    def commit(
        self,
        session_id: str,
        expected_revision: int,
        changes: KvChanges,
        receipt: tuple[str, JsonValue] | None = None,
    ) -> int:
        with self._lock:
            with self._write() as db:
                revision, index = self._row(db, session_id)
                new, texts = self._commit(db, session_id, revision, expected_revision, changes, receipt)
            self._kept.wrote(session_id, (new, index), kv=texts)
            return new

    def _commit(self, db: sqlite3.Connection, session_id: str, revision: int, expected_revision: int,
                changes: KvChanges, receipt: tuple[str, JsonValue] | None) -> tuple[int, dict[str, str | None]]:
        """The new revision and each change's JSON text (None: deleted), written."""
        if revision != expected_revision:
            raise RevisionConflict(expected_revision, revision)
        if receipt is not None and db.execute(
            "SELECT 1 FROM receipts WHERE session = ? AND call_id = ?", (session_id, receipt[0])
        ).fetchone():
            raise StoreError(f"a receipt for call {receipt[0]!r} already exists")
        # the session's key count and which changed keys it has, not every key read into Python (P-7's limits)
        count = db.execute("SELECT count(*) FROM kv WHERE session = ?", (session_id,)).fetchone()[0]
        present: set[str] = set()
        changed = list(changes)
        for start in range(0, len(changed), 500):
            chunk = changed[start : start + 500]
            sql = f"SELECT key FROM kv WHERE session = ? AND key IN ({','.join('?' * len(chunk))})"
            present.update(k for (k,) in db.execute(sql, [session_id, *chunk]))
        texts = self._checked_texts(int(count), present, changes)  # each value encoded once, for its size and row
        for key, text in texts.items():
            if text is None:
                db.execute("DELETE FROM kv WHERE session = ? AND key = ?", (session_id, key))
            else:
                db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (session_id, key, text))
        if receipt is not None:
            db.execute(
                "INSERT INTO receipts (session, call_id, value) VALUES (?, ?, ?)",
                (session_id, receipt[0], _dumps(receipt[1])),
            )
        db.execute("UPDATE sessions SET revision = ? WHERE id = ?", (revision + 1, session_id))
        return revision + 1, texts

    # receipts ---------------------------------------------------------------------------------
    def receipt(self, session_id: str, call_id: str) -> JsonValue | None:
        with self._lock:
            self._known(session_id)
            row = self._db.execute(
                "SELECT value FROM receipts WHERE session = ? AND call_id = ?", (session_id, call_id)
            ).fetchone()
        return None if row is None else json.loads(row[0])

    def put_receipt(self, session_id: str, call_id: str, result: JsonValue) -> JsonValue:
        with self._write() as db:
            self._exists(db, session_id)
            text = _dumps(result)
            sql = "INSERT OR IGNORE INTO receipts (session, call_id, value) VALUES (?, ?, ?)"
            if db.execute(sql, (session_id, call_id, text)).rowcount == 1:  # written: the row holds this text
                return json.loads(text)
            row = db.execute(
                "SELECT value FROM receipts WHERE session = ? AND call_id = ?", (session_id, call_id)
            ).fetchone()
            return json.loads(row[0])

    def receipts(self, session_id: str) -> dict[str, JsonValue]:
        with self._lock:
            self._known(session_id)
            sql = "SELECT call_id, value FROM receipts WHERE session = ? ORDER BY seq"
            rows = self._db.execute(sql, (session_id,)).fetchall()
        return {k: json.loads(v) for k, v in rows}

    # snapshots --------------------------------------------------------------------------------
    def put_snapshot(self, session_id: str, snapshot_id: str, data: JsonValue) -> None:
        self.put_snapshot_json(session_id, snapshot_id, _dumps(data))

    def put_snapshot_json(self, session_id: str, snapshot_id: str, text: str) -> None:
        with self._write() as db:
            self._insert_snapshot(db, session_id, snapshot_id, text)

    def _insert_snapshot(self, db: sqlite3.Connection, session_id: str, snapshot_id: str, text: str) -> None:
        self._exists(db, session_id)
        sql = "INSERT INTO snapshots (session, snapshot_id, data) VALUES (?, ?, ?)"
        db.execute(sql, (session_id, snapshot_id, text))

    def snapshots(self, session_id: str) -> list[tuple[str, JsonValue]]:
        return [(sid, json.loads(data)) for sid, data in self.snapshot_texts(session_id)]

    def snapshot_texts(self, session_id: str) -> list[tuple[str, str]]:
        return self._snapshot_rows(session_id, "data")

    def snapshot_utf8(self, session_id: str) -> list[tuple[str, bytes]]:
        """The stored texts' UTF-8 (SQLite's own encoding of a TEXT value), without decoding it to text."""
        return self._snapshot_rows(session_id, "CAST(data AS BLOB)")

    def _snapshot_rows(self, session_id: str, data: str) -> list[Any]:
        """A session's snapshots in write order, each its id and ``data`` (an SQL expression of the stored text)."""
        with self._lock:
            self._known(session_id)
            return self._db.execute(
                f"SELECT snapshot_id, {data} FROM snapshots WHERE session = ? ORDER BY seq", (session_id,)
            ).fetchall()
