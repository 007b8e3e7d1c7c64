"""Ctrl-C (SIGINT) outside the trial phase: before the run started, after every trial finished,
while a report renders, and between the models of a sweep. One Ctrl-C is never "twice", never a
traceback, and never turns a run whose trials all finished into a stopped one.

``harness run`` runs in a forked child (``_fork``); the test pauses it at a hook (a file appears)
and sends the signal then, so the signal lands in the phase under test, not after a sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import harness.cli
import harness.plan
import harness.rendering
from harness.cli import app
from harness.results import read_report, read_sweep
from harness.runner import _runner
from tests.harness.runner._fork import finish, start, wait_for
from tests.harness.runner._run import FIXED_PLAN

SMALL = ["--group", "A", "--stage", "simple", "--concurrency", "4"]  # 3 trials: a run takes well under a second


class Pause:
    """A hook the child stops in: it touches ``here`` and waits until the test touches ``go``."""

    def __init__(self, tmp: Path, name: str) -> None:
        self.here, self.go = tmp / f"{name}.here", tmp / f"{name}.go"

    def __call__(self) -> None:
        self.here.touch()
        while not self.go.exists():
            time.sleep(0.005)

    def interrupt(self, pid: int | None) -> None:
        """SIGINT the child while it waits in the hook, then let it go on."""
        assert pid is not None
        wait_for(self.here.exists, f"the child to reach {self.here.name}")
        os.kill(pid, signal.SIGINT)
        time.sleep(0.05)  # the handler runs in the child's main thread before it sees ``go``
        self.go.touch()


def _pause_rendering(monkeypatch: pytest.MonkeyPatch, pause: Pause, first_only: bool = True) -> None:
    """harness.rendering.render_all pauses in ``pause`` before rendering (the first call only)."""
    real = harness.rendering.render_all
    calls: list[Path] = []

    def render_all(run_dir: Path) -> list[Path]:
        calls.append(run_dir)
        if len(calls) == 1 or not first_only:
            pause()
        return real(run_dir)

    monkeypatch.setattr(harness.rendering, "render_all", render_all)


def _manifest(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    return data


def test_sigint_while_a_sweep_model_renders_stops_the_sweep_once_and_keeps_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect A: a Ctrl-C during model 1's rendering was "interrupted twice: aborted", model 1's
    report.html was never written, and a resume kept it unrendered."""
    pause = Pause(tmp_path, "render")
    _pause_rendering(monkeypatch, pause)
    out, log = tmp_path / "sw", tmp_path / "sweep.log"
    child = start(["run", str(FIXED_PLAN), *SMALL, "--model", "scripted/oracle", "--model", "scripted/stale-intent",
                   "--out", str(out)], log)
    pause.interrupt(child.pid)
    code, output = finish(child), log.read_text(encoding="utf-8")
    assert code == 3, output
    assert "interrupted twice" not in output and "Traceback" not in output
    assert f"--resume {out}" in output  # the resume command is printed
    sweep = read_sweep(out)
    assert (sweep.status, sweep.stopReason) == ("stopped", "interrupted")
    first, second = sweep.models
    assert (first.status, second.status) == ("completed", "not_run")  # the stop came before model 2
    assert (out / first.slug / "report.html").is_file() and (out / first.slug / "report.md").is_file()
    assert (out / "sweep.html").is_file()

    # a sweep an older harness (or a crash) left with a completed, unrendered model: a resume renders it
    monkeypatch.undo()
    (out / first.slug / "report.html").unlink()
    (out / first.slug / "report.md").unlink()
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--resume", str(out)])
    assert result.exit_code == 0, result.output
    assert "completed earlier: kept" in result.output
    assert (out / first.slug / "report.html").is_file() and (out / first.slug / "report.md").is_file()
    assert read_sweep(out).status == "completed"


def test_sigint_before_the_run_started_is_one_line_exit_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect B1: a Ctrl-C while the plan loads (before any directory or call) printed a traceback."""
    pause = Pause(tmp_path, "load")
    real = harness.plan.load_plan  # `harness run` imports it when the command starts

    def load_plan(path: str) -> Any:
        pause()
        return real(path)

    monkeypatch.setattr(harness.plan, "load_plan", load_plan)
    out, log = tmp_path / "run", tmp_path / "run.log"
    child = start(["run", str(FIXED_PLAN), *SMALL, "--out", str(out)], log)
    pause.interrupt(child.pid)
    code, output = finish(child), log.read_text(encoding="utf-8")
    assert code == 130, output
    assert output.strip() == "interrupted before the run started; nothing was run"
    assert not out.exists()


def test_sigint_while_the_commands_load_is_one_line_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect B1, the console script: a Ctrl-C while ``harness.cli`` imports its commands."""

    def interrupted() -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(harness.cli, "_load", interrupted)
    monkeypatch.setattr("sys.argv", ["harness", "run", str(FIXED_PLAN)])
    with pytest.raises(SystemExit) as exc:
        harness.cli.main()
    assert exc.value.code == 130
    assert capsys.readouterr().err == "interrupted before the run started; nothing was run\n"


def test_sigint_after_every_trial_finished_leaves_a_completed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect B2: a Ctrl-C after the last trial (before the outputs) said "stopped (interrupted)",
    exit 3, and printed a resume command for a run with nothing left to run."""
    pause = Pause(tmp_path, "trials")
    real = _runner.Experiment.run

    async def run(self: _runner.Experiment) -> None:
        await real(self)
        pause.here.touch()
        while not pause.go.exists():  # the event loop runs meanwhile: a loop-level handler sees the signal
            await asyncio.sleep(0.005)

    monkeypatch.setattr(_runner.Experiment, "run", run)
    out, log = tmp_path / "run", tmp_path / "run.log"
    child = start(["run", str(FIXED_PLAN), *SMALL, "--out", str(out)], log)
    pause.interrupt(child.pid)
    code, output = finish(child), log.read_text(encoding="utf-8")
    assert code == 0, output
    assert "stopped (interrupted)" not in output and "continue with" not in output
    report = read_report(out / "report.json")
    assert (report.status, report.stopReason) == ("completed", None)
    assert _manifest(out)["status"] == "completed" and (out / "report.html").is_file()


def test_sigint_while_the_report_renders_says_so_and_harness_report_renders_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect B2: a Ctrl-C during the rendering stops the rendering (exit 130, one line saying how
    to render), while the run, every trial finished, stays completed."""
    pause = Pause(tmp_path, "render")
    _pause_rendering(monkeypatch, pause)
    out, log = tmp_path / "run", tmp_path / "run.log"
    child = start(["run", str(FIXED_PLAN), *SMALL, "--out", str(out)], log)
    pause.interrupt(child.pid)
    code, output = finish(child), log.read_text(encoding="utf-8")
    assert code == 130, output
    assert "Traceback" not in output and "continue with" not in output and "interrupted twice" not in output
    assert f"the report rendering was interrupted (Ctrl-C): report.json is written; `harness report {out}` " \
           "renders report.html / report.md" in " ".join(output.split())
    assert read_report(out / "report.json").status == "completed" and _manifest(out)["status"] == "completed"
    assert not (out / "report.html").exists() and (out / "metrics.duckdb").is_file()
    monkeypatch.undo()
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file()


def test_exit_130_is_documented_in_run_help() -> None:
    result = CliRunner().invoke(app, ["run", "--help"], terminal_width=1000)
    assert "130 interrupted (Ctrl-C) before the run started (nothing ran)" in " ".join(result.output.split())
