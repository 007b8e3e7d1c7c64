"""Shared builders for the Q-1 benchmarks: one big multi-window session, the target window spread thin."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from protocols import MessageDraft, new_run_id
from protocols.store import MemoryStore, SessionStore, SqliteStore

TARGET = "target"
WINDOWS = 100
VISIBLE = 200


def make_store(backend: str, directory: Path) -> SessionStore:
    return MemoryStore() if backend == "memory" else SqliteStore(directory / f"bench-{new_run_id()}.sqlite")


def build_session(store: SessionStore, total: int, session_id: str = "bench") -> str:
    """``total`` messages across ``WINDOWS`` windows; the target window holds ``VISIBLE`` of them,
    evenly spread over the whole index range (the worst case for anything that scans). The last
    message is the current run's input, in the target window. Returns the run id."""
    run_id = new_run_id()
    store.create_session(session_id, {"activeWindow": TARGET, f"window/{TARGET}": {"goal": "bench"}})
    every = total // VISIBLE
    for i in range(1, total + 1):
        if i == total:
            draft = MessageDraft(run_id=run_id, window_id=TARGET, role="user", kind="input",
                                 content="the current question", input_run=run_id)
        else:
            window = TARGET if i % every == 0 else f"w{i % (WINDOWS - 1)}"
            draft = MessageDraft(run_id=run_id, window_id=window, role="assistant", kind="text",
                                 content=f"message {i} of window {window}: " + "lorem ipsum " * 8)
        store.append(session_id, draft)
    return run_id


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm caches
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)
