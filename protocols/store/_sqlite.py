"""SQLite store (E-8): durable, used for resume; the same semantics as ``MemoryStore``.

The database (``_sqlite_db``: one connection behind one lock, every write in ``BEGIN IMMEDIATE``, WAL for
files, the two message tiers every read merges) holds raw messages as their JSON body (``_body``:
``.wire()``), re-validated on read; KV values, receipts and snapshots are JSON text.

A store keeps what it read or wrote of each session's row (revision, last index) and KV values
(``_kept``), and of each window's messages (``_windows``), while no other connection writes to the file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import RevisionConflict, StoreError
from .._messages import MessageDraft, RawMessage
from .._state import KvLimits
from ._base import JsonValue, KvChanges
from ._body import as_read, message, remember, written
from ._schema import TIERS
from ._sqlite_db import ID_TAKEN, SqliteDb, dumps, merged
from ._windows import KeptWindows


class SqliteStore(SqliteDb):
    def __init__(self, path: str | Path = ":memory:", limits: KvLimits | None = None) -> None:
        super().__init__(path, limits)
        self._windows = KeptWindows()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
            self._windows.created(session_id)

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
                [(session_id, k, dumps(v)) for k, v in (kv or {}).items() if v is not None],
            )
            db.executemany(
                "INSERT INTO receipts (session, call_id, value) VALUES (?, ?, ?)",
                [(session_id, k, dumps(v)) for k, v in (receipts or {}).items()],
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
        """A committed append, as a read of its row gives it: decoded (``_body.remember``), and kept
        (``KeptWindows.appended``) so the next step reads no rows."""
        remember(body, msg)
        self._windows.appended(session_id, msg)

    def _insert_message(self, db: sqlite3.Connection, session_id: str,
                        draft: MessageDraft) -> tuple[RawMessage, str, int]:
        """The message written, its body and the session's revision (unchanged by an append)."""
        revision, index = self._row(db, session_id)
        index += 1
        msg_id = draft.id or f"m{index}"
        if db.execute(ID_TAKEN, (session_id, msg_id, session_id, msg_id)).fetchone():
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

    def window_messages(
        self, session_id: str, window_id: str, after_index: int, upper_bound: int, limit: int | None = None
    ) -> list[RawMessage]:
        where = "session = ? AND window = ? AND idx > ? AND idx <= ?"
        params: list[Any] = [session_id, window_id, after_index, upper_bound]
        with self._lock:
            self._known(session_id)
            if limit is not None:  # a page never reads past its own rows
                sql = merged(where, "by_window", limit=True)
                rows = self._db.execute(sql, [*params, limit, *params, limit, limit]).fetchall()
                return [message(body) for _, body in rows]
            # each step projects the window again; what was read of it is kept (``KeptWindows.prefix``)
            return list(self._windows.prefix(
                session_id, window_id, after_index, upper_bound, lambda: self._kept_row(session_id)[1],
                lambda seen: self._window_rows(session_id, window_id, seen, upper_bound)))

    def _window_rows(self, session_id: str, window_id: str, after_index: int, upper_bound: int) -> list[RawMessage]:
        """A window's messages in (``after_index``, ``upper_bound``], read from both tiers through its index."""
        where = "session = ? AND window = ? AND idx > ? AND idx <= ?"
        rows = self._db.execute(merged(where, "by_window"), [session_id, window_id, after_index, upper_bound] * 2)
        return [message(body) for _, body in rows.fetchall()]

    def run_inputs(self, session_id: str, run_id: str, upper_bound: int) -> list[RawMessage]:
        """Read from the file, or, for a session this store alone wrote up to ``upper_bound``, its inputs as they
        were appended (``KeptWindows.own_inputs``; Q-2: each step asks; a read of those rows gives the same
        messages, ``_appended``)."""
        where = "session = ? AND run = ? AND kind = 'input' AND idx <= ?"  # matches the partial index
        with self._lock:
            self._known(session_id)
            own = self._windows.own_inputs(session_id, run_id, upper_bound)
            if own is not None:
                return own
            params = [session_id, run_id, upper_bound]
            rows = self._db.execute(merged(where, "inputs"), params * 2).fetchall()
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
            rows = self._db.execute(merged("session = ? AND idx = ?"), [session_id, index] * 2).fetchall()
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
            for _, body in self._db.execute(merged(where, index), params * 2):
                msg = message(body)
                if needle in msg.text().casefold():
                    out.append(msg)
                    if len(out) >= limit:
                        break
        return out

    def all_messages(self, session_id: str) -> list[RawMessage]:
        with self._lock:
            self._known(session_id)
            rows = self._db.execute(merged("session = ?"), [session_id] * 2).fetchall()
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
                (session_id, receipt[0], dumps(receipt[1])),
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
            text = dumps(result)
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
        self.put_snapshot_json(session_id, snapshot_id, dumps(data))

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
