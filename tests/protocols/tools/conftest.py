"""Fixtures of the context-tool tests: a session in a store of either backend, and a bench that calls
tools the way the host does (frozen view from the session, optionally recorded as raw messages)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from protocols import FrozenView, KvLimits, MessageDraft, Protocol, ToolCall, resolve_ref
from protocols.store import MemoryStore, SessionStore
from tests.helpers.builders import SessionBuilder

try:  # the SQLite backend is being added in parallel (E-8); run on it as soon as it exists
    from protocols.store import SqliteStore
except ImportError:  # pragma: no cover
    SqliteStore = None

BACKENDS = ["memory", "sqlite"] if SqliteStore is not None else ["memory"]


def new_store(backend: str, limits: KvLimits | None = None) -> SessionStore:
    if backend == "memory":
        return MemoryStore(limits)
    return SqliteStore(":memory:", limits=limits)


class Bench:
    """One session of a store and one protocol; ``call`` dispatches, ``step`` also records the call
    and its result as raw messages in the window active at call time (P-44)."""

    def __init__(self, store: SessionStore, protocol: Protocol, session_id: str = "s1") -> None:
        self.store = store
        self.protocol = protocol
        self.b = SessionBuilder(store, session_id)
        self.sid = session_id
        self._seq = 0

    def _call(self, name: str, args: dict[str, Any] | str, call_id: str | None) -> ToolCall:
        self._seq += 1
        raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return ToolCall(id=call_id or f"{self.sid}-t{self._seq}", name=name, arguments=raw)

    def call(self, name: str, args: dict[str, Any] | str, *, call_id: str | None = None,
             frozen: FrozenView | None = None) -> dict[str, Any]:
        return self.protocol.dispatch(self.store, self.sid, self._call(name, args, call_id),
                                      frozen or self.b.frozen())

    def step(self, name: str, args: dict[str, Any] | str, *, call_id: str | None = None) -> dict[str, Any]:
        frozen = self.b.frozen()
        call = self._call(name, args, call_id)
        window = self.active()
        self.store.append(self.sid, MessageDraft(run_id=self.b.run_id, window_id=window, role="assistant",
                                                 kind="tool_call", tool_calls=(call,), frozen_view=frozen))
        result = self.protocol.dispatch(self.store, self.sid, call, frozen)
        self.b.result(call.id, result, window_id=window)
        self.b.window = self.active()  # the next message is written in the window now active
        return result

    def active(self) -> str:
        return str(self.store.kv_get(self.sid, "activeWindow") or "main")

    def revision(self) -> int:
        return self.store.revision(self.sid)

    def kv(self) -> dict[str, Any]:
        return self.store.kv_all(self.sid)

    @staticmethod
    def ok(result: dict[str, Any]) -> dict[str, Any]:
        assert result["success"] is True, result
        return result

    @staticmethod
    def code(result: dict[str, Any]) -> str:
        assert result["success"] is False, result
        return str(result["error"]["code"])


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_bench(backend: str) -> Iterator[Callable[..., Bench]]:
    """``make_bench("unified@2", maxFolds=2, limits=KvLimits(...), store=..., session_id=...)``."""
    stores: list[SessionStore] = []

    def make(ref: str = "unified@1", *, limits: KvLimits | None = None, store: SessionStore | None = None,
             session_id: str = "s1", **options: Any) -> Bench:
        if store is None:
            store = new_store(backend, limits)
            stores.append(store)
        return Bench(store, resolve_ref(ref, options), session_id)

    yield make
    for s in stores:
        close = getattr(s, "close", None)
        if close is not None:
            close()


@pytest.fixture
def bench(make_bench: Callable[..., Bench]) -> Bench:
    return make_bench("unified@1")

