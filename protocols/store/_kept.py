"""What a ``SqliteStore`` keeps of each session between reads (E-8, Q-2): its row (revision, last index) and
the KV values and prefixes read since its last KV write, served while no other connection has written to the
file since (SQLite's ``PRAGMA data_version``, asked before each such read; a private in-memory database has
no other connection). The store's own commits update what is kept (``wrote``), so a served value is always
what a fresh store reading the file now reads (tests/protocols/store/test_store_kept.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

_SESSIONS_MAX = 4096
"""Sessions kept, per store (the oldest goes first)."""
_KEYS_MAX = 1024
"""KV keys (absent ones included) and prefixes kept per session; beyond it the session's are read again."""
_SCALARS = frozenset({str, int, float, bool})
"""Decoded KV values that can be handed out shared (immutable); any other is decoded anew for each read."""

_Row = tuple[int, int]


class _Session:
    __slots__ = ("row", "kv", "prefixes")

    def __init__(self) -> None:
        self.row: _Row | None = None
        self.kv: dict[str, tuple[str, Any] | None] = {}
        """key → (its JSON text, its value when shared) or None (absent)."""
        self.prefixes: dict[str, list[tuple[str, str]]] = {}
        """prefix → its (key, JSON text) rows, by key."""


class Kept:
    """One store's kept sessions; every method is called with the store's lock held."""

    def __init__(self, db: sqlite3.Connection, private: bool) -> None:
        self._sessions: dict[str, _Session] = {}
        self._asked = None if private else db.cursor()  # one cursor for the question (a new one costs more)
        self._version: int | None = None
        """``data_version`` when the kept values were last known to be the file's."""

    def _current(self) -> None:
        """Forget everything kept if another connection has committed since this was last asked
        (``data_version`` does not change with this connection's own commits)."""
        if self._asked is None:
            return
        version = self._asked.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._sessions.clear()
            self._version = version

    def _session(self, session_id: str) -> _Session:
        kept = self._sessions.get(session_id)
        if kept is None:
            if len(self._sessions) >= _SESSIONS_MAX:
                self._sessions.pop(next(iter(self._sessions)))
            kept = self._sessions[session_id] = _Session()
        return kept

    def row(self, session_id: str, read: Callable[[], _Row]) -> _Row:
        """(revision, last index): ``read()`` once, then as this store's writes leave it."""
        self._current()
        kept = self._session(session_id)
        if kept.row is None:
            kept.row = read()
        return kept.row

    def value(self, session_id: str, key: str, read: Callable[[], str | None]) -> Any:
        """A KV value (None when absent) from its JSON text, ``read()`` once: a str, number or bool is handed
        out as kept, any other value decoded anew (the caller may change its own)."""
        self._current()
        return self._value(self._session(session_id), key, lambda _: read())

    def values(self, session_id: str, keys: Sequence[str], read: Callable[[str], str | None]) -> dict[str, Any]:
        """``value`` of each key, asking the file once whether another connection wrote (``read(key)``: its text)."""
        self._current()
        kept = self._session(session_id)
        return {key: self._value(kept, key, read) for key in keys}

    def _value(self, kept: _Session, key: str, read: Callable[[str], str | None]) -> Any:
        if key in kept.kv:
            hit = kept.kv[key]
            if hit is None:
                return None
            return hit[1] if hit[1] is not None else json.loads(hit[0])
        text = read(key)
        value = None if text is None else json.loads(text)
        self._keep(kept, key, text, value)
        return value

    @staticmethod
    def _keep(kept: _Session, key: str, text: str | None, value: Any) -> None:
        if len(kept.kv) >= _KEYS_MAX:
            kept.kv.clear()
        kept.kv[key] = None if text is None else (text, value if type(value) in _SCALARS else None)

    def prefix(self, session_id: str, prefix: str, read: Callable[[], list[tuple[str, str]]]) -> dict[str, Any]:
        """Every key with ``prefix`` and its value decoded anew, from the rows ``read()`` once (sorted here)."""
        self._current()
        kept = self._session(session_id)
        rows = kept.prefixes.get(prefix)
        if rows is None:
            rows = sorted(read())  # in Python: SQLite's BINARY order is byte order, Python's is code point order
            if len(kept.prefixes) >= _KEYS_MAX:
                kept.prefixes.clear()
            kept.prefixes[prefix] = rows
        return {k: json.loads(v) for k, v in rows}

    def wrote(self, session_id: str, row: _Row, kv: bool | Mapping[str, str | None] = False) -> None:
        """After a commit of this store: the session's row as its transaction left it. ``kv``: the session's KV
        changed, so its kept values are dropped (True), or it changed by these keys' new JSON texts (None:
        deleted), which the kept values and prefixes take: what a read of the file now gives (every other
        key as it was; another connection's commit before it changes ``data_version``, so nothing kept is
        served after it)."""
        kept = self._session(session_id)
        kept.row = row
        if kv is True:
            kept.kv.clear()
            kept.prefixes.clear()
            return
        for key, text in (kv or {}).items():
            self._keep(kept, key, text, None if text is None else json.loads(text))
            for prefix, rows in kept.prefixes.items():
                if key.startswith(prefix):
                    rest = [r for r in rows if r[0] != key]
                    kept.prefixes[prefix] = rest if text is None else sorted([*rest, (key, text)])
