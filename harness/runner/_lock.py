"""One process at a time in a run (or sweep) directory: an exclusive OS lock on ``DIR/run.lock``.

Two processes resuming one directory would both run the same trials, interleave calls.jsonl and
fight over DuckDB's file lock. ``exclusive(DIR, what)`` takes ``fcntl.flock`` on
``DIR/run.lock`` without waiting; when another process holds it, ``RunLocked`` (exit 2) names the
holder (pid, host, start time, command), which the holder wrote into the file.

The kernel releases a flock when its process ends, however it ends: a SIGKILLed run never leaves a
stale lock, so the file is never deleted (deleting a lock file lets two processes lock two
different files of one name) and its text is only a description of the last holder.

Who takes it: ``harness run`` exclusively (a run directory, and a sweep directory for the whole
sweep, each model's run directory inside it too); ``harness report DIR`` and ``harness rescore
RUN_DIR`` shared (``shared``, writing nothing into the directory). Those two only read a run, but
they read files the run rewrites when it ends (report.json, metrics.duckdb under DuckDB's own lock,
trials.jsonl mid-append), so while a run holds the directory they are refused with the holder
named rather than rendering a half-written run, and no run starts while they read.
``harness compare`` opens metrics.duckdb read-only and takes no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from protocols import InvalidInput

from ._storage import StorageError

LOCK = "run.lock"


class RunLocked(InvalidInput):
    """Another process holds the directory (exit 2); the message names it."""


def _holder(fd: int) -> str:
    """Who holds the lock, from its description; a reader (``shared``) writes none."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8") or "{}")
    except (OSError, ValueError):
        data = {}
    pid = data.get("pid") if isinstance(data, dict) else None
    if not isinstance(pid, int) or (data.get("host") == socket.gethostname() and not _alive(pid)):
        return "a process reading it (harness report or harness rescore), or one that has just started"
    return (f"{data.get('command', 'harness')} pid {pid} on host {data.get('host')}, "
            f"started at {data.get('startedAt')}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _refused(directory: Path, fd: int) -> RunLocked:
    return RunLocked(f"{directory} is in use by {_holder(fd)}; one process at a time uses a run directory. "
                     "Wait for it to end (or stop it with Ctrl-C), then try again")


@contextmanager
def exclusive(directory: Path, what: str) -> Iterator[None]:
    """Hold ``directory`` (creating it) for a process that writes it, while the block runs.

    ``what`` says what holds it (``harness run``), for the message another process gets. Raises
    ``RunLocked`` when another process holds it, ``StorageError`` when the directory cannot be
    created or its lock file cannot be written (a read-only or full disk)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StorageError(directory, exc) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _refused(directory, fd) from None
        _describe(fd, directory, what)
        try:
            yield
        finally:
            _clear(fd)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextmanager
def shared(directory: Path) -> Iterator[None]:
    """For a process that reads a run (``harness report``, ``harness rescore``): refused while a
    run holds it, and no run starts in it meanwhile. Writes nothing into the directory; a
    directory without run.lock (never run by this version, or missing) is not locked."""
    try:
        fd = os.open(directory / LOCK, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _refused(directory, fd) from None
        yield
    finally:
        os.close(fd)


def _describe(fd: int, directory: Path, what: str) -> None:
    me = {"pid": os.getpid(), "host": socket.gethostname(),
          "startedAt": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
          "command": what}
    text = json.dumps(me, ensure_ascii=False).encode("utf-8") + b"\n"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text, 0)
    except OSError as exc:
        raise StorageError(directory, exc) from None


def _clear(fd: int) -> None:
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass  # the kernel still releases the lock; only the description stays
