"""``harness run`` in forked children (a real second process, started in milliseconds because the
imports are already done), with their output kept in a log file the test reads."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from harness.results import TrialRecord
from harness.server import fetch_stats


def _cli(argv: list[str], log: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdout = sys.stderr = open(fd, "w", encoding="utf-8", buffering=1)  # pytest's capture is not ours
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even under a backgrounded pytest
    from harness.cli import app

    code = 0
    try:
        app(argv, prog_name="harness")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    sys.stdout.flush()
    os._exit(code)


def start(argv: list[str], log: Path) -> BaseProcess:
    child = multiprocessing.get_context("fork").Process(target=_cli, args=(argv, str(log)))
    child.start()
    return child


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def finish(child: BaseProcess) -> int:
    child.join(timeout=120)
    assert child.exitcode is not None, "harness run did not end"
    return child.exitcode


def records(run_dir: Path) -> list[TrialRecord]:
    """Every line of trials.jsonl as written (torn lines skipped)."""
    out = []
    path = run_dir / "trials.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        try:
            out.append(TrialRecord.model_validate_json(line))
        except ValueError:
            continue
    return out


def lock_holder(directory: Path) -> dict[str, Any]:
    """What run.lock says about its holder ({} before anyone wrote it)."""
    try:
        text = (directory / "run.lock").read_text(encoding="utf-8")
        data: dict[str, Any] = json.loads(text) if text.strip() else {}
        return data
    except (FileNotFoundError, ValueError):
        return {}


def idle(url: str, tries: int = 1000) -> dict[str, Any]:
    """The scripted server's stats once the requests of a killed runner have drained."""
    for _ in range(tries):
        stats = fetch_stats(url)
        if stats["in_flight"] == 0:
            return stats
        time.sleep(0.01)
    raise AssertionError("the scripted server never went idle")
