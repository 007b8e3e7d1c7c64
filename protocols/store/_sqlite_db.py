"""A SQLite store's database (E-8, E-9, E-10): its connection, write transactions, migrations, and the reads
every query of ``SqliteStore`` is built on.

One connection shared by every thread (``check_same_thread=False``) behind one lock, so the
process's writers are serialised; every write runs in ``BEGIN IMMEDIATE`` so that two stores
opened on the same file also allocate indexes atomically and gaplessly (E-10). File databases use
WAL.

Messages live in two tiers with the same shape (``_schema``): ``messages`` (hot) and ``messages_cold``;
every read merges both (``merged``, E-12). Each tier has a (session, window, index) index so a window's
read uses only the window's range, never the whole session (Q-1); a session's last index is the largest
of its tiers' (``ROW``), so an append writes no other row than its own.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._errors import StoreError
from .._state import KvLimits
from .._text import json_text
from ._base import JsonValue, SessionStore
from ._kept import Kept
from ._schema import MIGRATIONS, TIERS

ROW = "SELECT revision, max({}) FROM sessions WHERE id = ?1".format(
    ", ".join(f"coalesce((SELECT max(idx) FROM {t} WHERE session = ?1), 0)" for t in TIERS))
ID_TAKEN = " UNION ALL ".join(f"SELECT 1 FROM {t} WHERE session = ? AND id = ?" for t in TIERS)


def dumps(value: JsonValue) -> str:
    return json_text(value)


def merged(where: str, index: str | None = None, limit: bool = False) -> str:
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


class SqliteDb(SessionStore):
    """The database under a ``SqliteStore``: opened and migrated on construction, closed with the store."""

    def __init__(self, path: str | Path = ":memory:", limits: KvLimits | None = None) -> None:
        self.limits = limits or KvLimits()
        self.path = str(path)
        self._lock = threading.RLock()
        self._sessions: set[str] = set()
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
        row = db.execute(ROW, (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"unknown session {session_id!r}")
        return int(row[0]), int(row[1])

    def _kept_row(self, session_id: str) -> tuple[int, int]:
        return self._kept.row(session_id, lambda: self._row(self._db, session_id))

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
