"""What a ``SqliteStore`` keeps of each window's messages between reads (E-8, Q-2: each step projects the
window again), and which sessions it follows as their only writer.

Rows at or below a session's last index never change (P-1: immutable, indices only grow; archiving moves a
row between the tiers a read merges, never out of them), so a window's messages read up to that index are
kept and a later read of the same window fetches only the rows after it. A committed append is added to
every kept window of its session that was read up to the index before it (no other row can lie between), so
the next step reads no rows. A session this store created and alone wrote since is kept from its start: a
window's first message starts its kept messages (every earlier one was appended here, to another window);
another writer's row (a gap in the indexes) ends that. Bounded: ``_WINDOWS_MAX`` windows, ``_GROWN_MAX``
messages grown by appends, ``_OWN_MAX`` own sessions, the oldest going first.
"""

from __future__ import annotations

from collections.abc import Callable

from .._messages import RawMessage

_WINDOWS_MAX = 128
"""Windows whose messages a store keeps (``KeptWindows.prefix``), per store."""
_GROWN_MAX = 4096
"""A window kept as its messages are appended stops being kept beyond this many (it is read again, once)."""
_OWN_MAX = 4096
"""Sessions a store follows as their only writer (``KeptWindows.created``), per store."""

_Key = tuple[str, str, int]
"""(session, window, the index the kept messages start after)."""


class KeptWindows:
    """One store's kept windows; every method is called with the store's lock held."""

    def __init__(self) -> None:
        self._windows: dict[_Key, tuple[int, list[RawMessage]]] = {}
        """key → (the last index read or appended, the window's messages after the key's index up to it)."""
        self._session_windows: dict[str, dict[_Key, None]] = {}
        """The keys of ``_windows`` by session (an append looks at its session's only)."""
        self._own: dict[str, int] = {}
        """Sessions this store created and has been the only writer of since, with their last index: each of
        their windows is kept from the start as its messages are appended (``appended``)."""
        self._own_inputs: dict[str, dict[str, list[RawMessage]]] = {}
        """An own session's input messages by run, each appended here (``own_inputs``)."""

    def created(self, session_id: str) -> None:
        """A session this store created: followed as its only writer from its start."""
        if len(self._own) >= _OWN_MAX:  # the oldest goes first (its windows are read as before)
            self._disown(next(iter(self._own)))
        self._own[session_id] = 0
        self._own_inputs[session_id] = {}

    def appended(self, session_id: str, msg: RawMessage) -> None:
        """A committed append, as a read of its row gives it (after the commit: a rolled-back row is never kept)."""
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

    def prefix(self, session_id: str, window_id: str, after_index: int, upper_bound: int,
               last_index: Callable[[], int], read: Callable[[int], list[RawMessage]]) -> list[RawMessage]:
        """A window's messages in (``after_index``, ``upper_bound``], read once: ``last_index()`` is the session's
        last index, ``read(seen)`` the window's rows in (``seen``, ``upper_bound``]. The caller copies what it is
        given."""
        key = (session_id, window_id, after_index)
        seen, kept = self._windows.get(key, (after_index, []))
        if upper_bound < seen:  # an older frozen view: the kept messages up to its bound
            return [m for m in kept if m.index <= upper_bound]
        if upper_bound == seen:
            return kept
        # every row at or below the last index read now was written (committed) with it, so the rows
        # read after it hold all of them: only that far is kept
        last = min(upper_bound, last_index())
        out = [*kept, *read(seen)]
        if last > seen:
            self._keep(key, (last, [m for m in out if m.index <= last] if last < upper_bound else out))
        return out

    def own_inputs(self, session_id: str, run_id: str, upper_bound: int) -> list[RawMessage] | None:
        """A run's inputs up to ``upper_bound`` as they were appended, for a session this store alone wrote up to
        there (every row up to its last index was appended here, in index order); None: read them from the file."""
        own = self._own.get(session_id)
        if own is None or upper_bound > own:
            return None
        return [m for m in self._own_inputs[session_id].get(run_id, ()) if m.index <= upper_bound]

    def _keep(self, key: _Key, value: tuple[int, list[RawMessage]]) -> None:
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

    def _drop(self, key: _Key) -> None:
        del self._windows[key]
        keys = self._session_windows[key[0]]
        del keys[key]
        if not keys:
            del self._session_windows[key[0]]
