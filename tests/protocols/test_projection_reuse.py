"""Reuse across steps (Q-2): a window's rows read once per store, a tool result's preview once per message.

A long-lived SqliteStore keeps what it read of each window and the mapping keeps each stored tool result's
preview; a step's projection must be exactly what a fresh store (same file, nothing kept) and a cleared
preview cache project, whatever happened in between: appends in several windows, window switches, folds,
checkpoints, archiving, older frozen views.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocols import (
    AgentConfig,
    FrozenView,
    HostOptions,
    MessageDraft,
    ProjectionError,
    ToolCall,
    _mapping,
    new_run_id,
    resolve_ref,
)
from protocols.store import SqliteStore

AGENT = AgentConfig(systemPrompt="You help.\n{{context_protocol}}", inputs={"customer": "ACME"})
HOST = HostOptions(toolResultPreviewCharacters=100)
REFS = ["unified@3", "unified@1", "prefix@2"]

_op = st.one_of(
    st.tuples(st.just("input"), st.text(max_size=12)),
    st.tuples(st.just("text"), st.text(max_size=12)),
    st.tuples(st.just("exchange"), st.integers(0, 250)),  # the result's length: some are cut (preview)
    st.tuples(st.just("image"), st.just(0)),
    st.tuples(st.just("switch"), st.sampled_from(["main", "w2"])),
    st.tuples(st.just("fold"), st.just(0)),
    st.tuples(st.just("checkpoint"), st.just(0)),
    st.tuples(st.just("archive"), st.integers(0, 3)),
    st.tuples(st.just("project"), st.integers(0, 3)),  # how many indices below the last to freeze at
)


class _Session:
    def __init__(self, store: SqliteStore) -> None:
        self.store, self.sid, self.run = store, "s1", new_run_id()
        store.create_session(self.sid, {"activeWindow": "main"})
        self.window, self.calls = "main", 0
        self.last_pair: tuple[str, int, int] | None = None

    def append(self, **fields: Any) -> int:
        draft = MessageDraft(run_id=self.run, window_id=self.window, **fields)
        return self.store.append(self.sid, draft).index

    def kv(self, changes: dict[str, Any]) -> None:
        self.store.commit(self.sid, self.store.revision(self.sid), changes)

    def apply(self, op: str, arg: Any) -> None:
        if op == "input":
            self.run = new_run_id()
            self.append(role="user", kind="input", content=arg or "?", input_run=self.run)
        elif op == "text":
            self.append(role="assistant", kind="text", content=arg)
        elif op == "image":
            part = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,A{self.calls}"}}
            self.append(role="user", kind="runtime_instruction", content=[{"type": "text", "text": "look"}, part])
        elif op == "exchange":
            self.calls += 1
            cid = f"c{self.calls}"
            call = self.append(role="assistant", kind="tool_call", content="",
                               tool_calls=(ToolCall(id=cid, name="quote", arguments='{"n": 1}'),))
            result = self.append(role="tool", kind="tool_result", content="r" * arg + "é", tool_call_id=cid)
            self.last_pair = (self.window, call, result)
        elif op == "switch":
            self.window = arg
            self.kv({"activeWindow": arg, f"window/{arg}": {"status": "active", "goal": "g"}})
        elif op == "fold" and self.last_pair is not None and self.last_pair[0] == self.window:
            _, first, last = self.last_pair
            covered = int(self.store.kv_get(self.sid, f"coveredThrough/{self.window}") or 0)
            if first > covered:
                ids = [m.id for m in self.store.window_messages(self.sid, self.window, first - 1, last)]
                self.kv({f"fold/f{first}": {"windowId": self.window, "fromIndex": first, "throughIndex": last,
                                            "messageIds": ids, "summary": "done"}})
            self.last_pair = None
        elif op == "checkpoint":
            through = self.store.max_index(self.sid)
            self.kv({f"coveredThrough/{self.window}": through,
                     f"checkpoint/{self.window}": {"summary": "so far", "coveredThrough": through}})
            self.last_pair = None
        elif op == "archive":
            self.store.archive(self.sid, max(0, self.store.max_index(self.sid) - arg))


def _projection(ref: str, store: SqliteStore, session: _Session, upper: int) -> Any:
    """The request's wire form, or the error a view cut between a call and its result gets (P-15)."""
    frozen = FrozenView(revision=store.revision(session.sid), upper_bound=upper, run_id=session.run)
    try:
        return resolve_ref(ref).project(store, session.sid, frozen, AGENT, HOST).wire()
    except ProjectionError as exc:
        return str(exc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=st.sampled_from(REFS), ops=st.lists(_op, min_size=1, max_size=30))
def test_a_projection_from_kept_reads_equals_a_fresh_one(ref: str, ops: list[tuple[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with SqliteStore(path) as store:
            session = _Session(store)
            session.apply("input", "first")
            for op, arg in [*ops, ("project", 0)]:
                if op != "project":
                    session.apply(op, arg)
                    continue
                last = store.max_index(session.sid)
                for upper in sorted({last, max(1, last - arg)}, reverse=True):  # the latest view, an older one
                    kept = _projection(ref, store, session, upper)
                    windows = {w: store.window_messages(session.sid, w, 0, upper) for w in ("main", "w2")}
                    _mapping._PREVIEWS.clear()
                    with SqliteStore(path) as fresh:
                        assert kept == _projection(ref, fresh, session, upper)
                        assert windows == {w: fresh.window_messages(session.sid, w, 0, upper)
                                           for w in ("main", "w2")}
                    assert kept == _projection(ref, store, session, upper)  # and again from what was kept


def test_a_window_read_beyond_the_last_index_keeps_only_what_was_written() -> None:
    """A read whose bound is past the session's last index must not keep that bound: later rows belong."""
    with tempfile.TemporaryDirectory() as tmp, SqliteStore(Path(tmp) / "s.sqlite") as store:
        store.create_session("s", {"activeWindow": "main"})
        run = new_run_id()
        store.append("s", MessageDraft(run_id=run, window_id="main", role="user", kind="input", content="a",
                                       input_run=run))
        assert [m.index for m in store.window_messages("s", "main", 0, 5)] == [1]
        store.append("s", MessageDraft(run_id=run, window_id="main", role="assistant", kind="text", content="b"))
        assert [m.content for m in store.window_messages("s", "main", 0, 5)] == ["a", "b"]
        assert [m.content for m in store.window_messages("s", "main", 0, 1)] == ["a"]  # an older bound


def _say(store: SqliteStore, sid: str, text: str, window: str = "main") -> None:
    store.append(sid, MessageDraft(run_id=RUN, window_id=window, role="assistant", kind="text", content=text))


RUN = new_run_id()


def _texts(store: SqliteStore, sid: str, window: str = "main", after: int = 0) -> list[str]:
    return [str(m.content) for m in store.window_messages(sid, window, after, store.max_index(sid))]


def test_a_session_written_by_two_stores_reads_every_row() -> None:
    """A window kept as this store appends to it must see another store's row between two of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with SqliteStore(path) as mine, SqliteStore(path) as other:
            mine.create_session("s", {"activeWindow": "main"})
            _say(mine, "s", "a")
            _say(mine, "s", "b", window="w2")
            assert _texts(mine, "s") == ["a"]
            assert _texts(mine, "s", after=1) == []
            _say(other, "s", "theirs")
            _say(mine, "s", "c")
            _say(mine, "s", "d", window="w2")
            assert _texts(mine, "s") == ["a", "theirs", "c"]
            assert _texts(mine, "s", "w2") == ["b", "d"]
            assert _texts(mine, "s", after=1) == ["theirs", "c"]
            _say(other, "s", "e", window="w3")  # a window this store never saw appended
            _say(mine, "s", "f", window="w3")
            assert _texts(mine, "s", "w3") == ["e", "f"]


def test_windows_kept_from_the_start_are_read_again_once_dropped(monkeypatch: Any) -> None:
    """Kept windows are bounded (how many, how long); a dropped one is read from the rows, never restarted."""
    from protocols.store import _windows

    monkeypatch.setattr(_windows, "_WINDOWS_MAX", 2)
    monkeypatch.setattr(_windows, "_GROWN_MAX", 3)
    with tempfile.TemporaryDirectory() as tmp, SqliteStore(Path(tmp) / "s.sqlite") as store:
        for sid in ("s1", "s2", "s3"):  # s1's window goes first
            store.create_session(sid, {"activeWindow": "main"})
            _say(store, sid, f"{sid}-1")
        _say(store, "s1", "s1-2")
        assert _texts(store, "s1") == ["s1-1", "s1-2"]
        _say(store, "s1", "s1-x", window="w2")
        assert _texts(store, "s1", "w2") == ["s1-x"]
    with tempfile.TemporaryDirectory() as tmp, SqliteStore(Path(tmp) / "s.sqlite") as store:
        store.create_session("s", {"activeWindow": "main"})
        for n in range(1, 6):  # past the length bound
            _say(store, "s", f"{n}")
            assert _texts(store, "s") == [str(i) for i in range(1, n + 1)]
