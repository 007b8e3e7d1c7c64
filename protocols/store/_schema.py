"""The SQLite store's schema (E-8) and its migrations, applied in order; ``PRAGMA user_version`` records how many ran.

Messages live in two tiers with the same shape (E-12), each with a (session, window, index) index so a projection
reads only its window's range (Q-1). A session's last message index is the largest index in its tiers, read in the
append's own write transaction (E-10: allocated atomically and gaplessly); receipts and snapshots keep their write
order in a plain ``INTEGER PRIMARY KEY`` (SQLite gives the largest plus one; nothing is ever deleted from them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

TIERS = ("messages", "messages_cold")


def _tier_ddl(table: str) -> str:
    return f"""
    CREATE TABLE {table} (
        session TEXT NOT NULL, idx INTEGER NOT NULL, id TEXT NOT NULL, window TEXT NOT NULL,
        run TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session, idx)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX {table}_by_id ON {table} (session, id);
    CREATE INDEX {table}_by_window ON {table} (session, window, idx);
    CREATE INDEX {table}_inputs ON {table} (session, run, idx) WHERE kind = 'input';
    """


def _m001_initial(db: sqlite3.Connection) -> None:
    _statements(db, (
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY, revision INTEGER NOT NULL, max_index INTEGER NOT NULL
        );
        CREATE TABLE kv (
            session TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (session, key)
        ) WITHOUT ROWID;
        CREATE TABLE receipts (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, call_id TEXT NOT NULL,
            value TEXT NOT NULL, UNIQUE (session, call_id)
        );
        CREATE TABLE snapshots (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, snapshot_id TEXT NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX snapshots_by_session ON snapshots (session, seq);
        CREATE TABLE tool_calls (
            session TEXT NOT NULL, call_id TEXT NOT NULL, idx INTEGER NOT NULL,
            PRIMARY KEY (session, call_id)
        ) WITHOUT ROWID;
        """
        + "".join(_tier_ddl(t) for t in TIERS)
    ))


def _m002_fewer_pages_per_commit(db: sqlite3.Connection) -> None:
    """Every append wrote the session's row again (its ``max_index``) and every receipt or snapshot the table's
    ``sqlite_sequence`` row (AUTOINCREMENT): a page each in the write-ahead log, about 9 us of CPU a page (Q-3).
    The last index is now read from the tiers themselves and the order kept by the rows' own keys."""
    _statements(db, """
        CREATE TABLE sessions_m002 (id TEXT PRIMARY KEY, revision INTEGER NOT NULL);
        INSERT INTO sessions_m002 (id, revision) SELECT id, revision FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_m002 RENAME TO sessions;
        CREATE TABLE receipts_m002 (
            seq INTEGER PRIMARY KEY, session TEXT NOT NULL, call_id TEXT NOT NULL,
            value TEXT NOT NULL, UNIQUE (session, call_id)
        );
        INSERT INTO receipts_m002 (seq, session, call_id, value) SELECT seq, session, call_id, value FROM receipts;
        DROP TABLE receipts;
        ALTER TABLE receipts_m002 RENAME TO receipts;
        CREATE TABLE snapshots_m002 (
            seq INTEGER PRIMARY KEY, session TEXT NOT NULL, snapshot_id TEXT NOT NULL, data TEXT NOT NULL
        );
        INSERT INTO snapshots_m002 (seq, session, snapshot_id, data)
            SELECT seq, session, snapshot_id, data FROM snapshots;
        DROP TABLE snapshots;
        ALTER TABLE snapshots_m002 RENAME TO snapshots;
        CREATE INDEX snapshots_by_session ON snapshots (session, seq);
    """)


def _statements(db: sqlite3.Connection, script: str) -> None:
    # statement by statement: executescript would commit the migration's transaction early
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_m001_initial, _m002_fewer_pages_per_commit]


