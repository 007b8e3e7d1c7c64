"""Fixtures shared across the harness tests: the fixed plan swept over two scripted models (run once
per test session: the xdist workers share it)."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import FIXED_PLAN

SWEPT = ("scripted/oracle", "scripted/prefill-continuer")
SWEEP_CAPS = ["--max-total-tokens", "1200000", "--max-llm-calls", "800"]
"""The README's two-model sweep raises the fixed plan's caps to a pool for two models."""


@pytest.fixture(scope="session")
def fixed_sweep(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[Path, int, str]:
    """Issue 13, must show 1: the fixed plan swept over the oracle and prefill-continuer, from the CLI,
    as the README documents it (``SWEEP_CAPS``).

    Concurrency 16 starts every trial of a stage at once, so fail-fast skips nothing and each
    group's n is the plan's repeats. A sweep shares one budget across its models; since every
    conversation folds and compresses (issue 11) the oracle alone spends ~510,000 of the fixed plan's
    600,000 tokens, so the sweep raises the shared caps to twice the plan's on the command line.
    Returns (sweep directory, exit code, output). Under xdist the first worker to need it runs the
    sweep in the session's shared temporary folder, under a file lock, and the others read what it
    wrote (the tests only read the sweep directory, or copy it)."""
    if worker_id == "master":  # no xdist: one process
        return _sweep(tmp_path_factory.mktemp("sweep") / "D")
    shared = tmp_path_factory.getbasetemp().parent  # this session's folder, above each worker's own
    with (shared / "fixed-sweep.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "fixed-sweep.json"
        if done.is_file():
            out, code, output = json.loads(done.read_text(encoding="utf-8"))
            return Path(out), code, output
        (shared / "fixed-sweep").mkdir(exist_ok=True)
        result = _sweep(shared / "fixed-sweep" / "D")
        done.write_text(json.dumps([str(result[0]), result[1], result[2]]), encoding="utf-8")
        return result


def _sweep(out: Path) -> tuple[Path, int, str]:
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", SWEPT[0], "--model", SWEPT[1], *SWEEP_CAPS,
                                      "--concurrency", "16", "--out", str(out)])
    return out, result.exit_code, result.output
