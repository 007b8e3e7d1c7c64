"""The run directory's fsync thread commits in groups: a burst of appended lines wakes it once, every
line written before ``stop`` is synced, and an fsync's error reaches the writer; a call's line is what
``json.dumps`` writes."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.runner import _persist
from harness.runner._persist import _Syncer


@pytest.fixture()
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(fd)
        real(fd)

    monkeypatch.setattr(_persist.os, "fsync", counting)
    return seen


def test_a_burst_of_lines_wakes_the_thread_once_and_all_are_synced(tmp_path: Path, fsyncs: list[int]) -> None:
    syncer = _Syncer(window_s=5.0)  # a window far longer than the burst: only stop() may cut it short
    with (tmp_path / "calls.jsonl").open("a", encoding="utf-8") as fh:
        for n in range(200):
            fh.write(f"{n}\n")
            fh.flush()
            syncer.dirty(fh)
        syncer.stop()  # returns at once although the window is 5 s: stop wakes the thread
        assert syncer.wakeups <= 1  # the thread started on the first line; later lines never woke it
        assert fsyncs and set(fsyncs) == {fh.fileno()}
        assert len(fsyncs) <= 3  # the first line, the rest of the burst, nothing per line


def test_a_line_after_a_quiet_spell_is_synced_without_waiting_for_stop(tmp_path: Path, fsyncs: list[int]) -> None:
    syncer = _Syncer(window_s=0.01)
    synced = threading.Event()
    with (tmp_path / "calls.jsonl").open("a", encoding="utf-8") as fh:
        syncer.dirty(fh)
        for _ in range(500):  # the thread syncs the first line and goes idle
            if fsyncs:
                break
            synced.wait(0.01)
        first = len(fsyncs)
        for _ in range(500):  # idle: wait until it waits for work again
            if syncer._idle:
                break
            synced.wait(0.01)
        syncer.dirty(fh)
        for _ in range(500):
            if len(fsyncs) > first:
                break
            synced.wait(0.01)
        assert first >= 1 and len(fsyncs) > first
        assert syncer.wakeups == 1
        syncer.stop()


def test_an_fsync_error_is_raised_by_the_next_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_persist.os, "fsync", failing)
    syncer = _Syncer(window_s=0.01)
    with (tmp_path / "calls.jsonl").open("a", encoding="utf-8") as fh:
        syncer.dirty(fh)
        with pytest.raises(OSError, match="No space left"):
            syncer.stop()


_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=10)


@given(st.dictionaries(st.text(max_size=12), _values, max_size=8))
def test_a_call_line_is_what_json_dumps_writes(call: dict[str, object]) -> None:
    assert _persist._encode_call(call) == json.dumps(call, ensure_ascii=False)
