"""Plain progress lines count trials as the report does: done (passed or failed), skipped (with the
reason at the end) and not run (the group never reached the stage) apart, so a run whose fail-fast
skipped repeats never reads "6/6 trials done". While no model call settles for a while (a local model
reading a long prompt), a periodic line says a call is in flight and for how long."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import _progress, app
from tests.harness.runner._run import FIXED_PLAN, plan_data


def test_skipped_and_not_run_trials_are_not_counted_as_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """prefill-continuer fails A's first simple repeat: fail-fast skips its other two, and A never
    reaches tool_continuation; v1 passes all five."""
    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", 0.0)
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", "scripted/prefill-continuer",
                                      "--group", "A", "--group", "v1", "--stage", "simple", "--stage",
                                      "tool_continuation", "--concurrency", "1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert re.search(r"stage simple: group A failed \(failed 1, skipped 2\); 1/10 trials done, 2 skipped, ",
                     result.output), result.output
    last = [line for line in result.output.splitlines() if re.match(r"\[\s*\d+ s\] ", line)][-1]
    assert last.split("] ", 1)[1].startswith("run finished: 6/10 trials done, 2 skipped (fail_fast 2), 2 not run "
                                             "(their group did not reach the stage), "), last


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _progress_at(monkeypatch: pytest.MonkeyPatch) -> tuple[_progress.Progress, _Clock, list[str]]:
    from harness.plan import parse_plan
    from harness.runner import RunRequest, Settings

    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", 30.0)
    plan, sha = parse_plan(plan_data())
    progress = _progress.Progress(RunRequest(plan=plan, plan_sha256=sha, plan_path="p.json", out_dir=Path("-"),
                                             settings=Settings(agent_model="m", maintainer_model="m")), plain=True)
    clock, lines = _Clock(), list[str]()
    monkeypatch.setattr(progress, "_clock", clock)
    monkeypatch.setattr(progress, "_line", lines.append)
    progress._started = progress._last = progress._last_call = 0.0
    return progress, clock, lines


def test_a_long_call_is_said_to_be_in_flight_with_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    progress, clock, lines = _progress_at(monkeypatch)
    clock.now = 30.0  # the first call of a local model still reads its prompt
    progress._maybe_line()
    assert lines[-1].endswith("; a model call in flight: 30 s since the run started"), lines
    clock.now = 58.0
    progress.on_call({"ok": True, "inputTokens": 3400, "outputTokens": 1})
    clock.now = 60.0  # a line is due, but a call settled 2 s ago: nothing in flight worth naming
    progress._maybe_line()
    assert lines[-1].startswith("progress: 0/") and "in flight" not in lines[-1], lines
    clock.now = 100.0
    progress.on_call({"ok": False})
    clock.now = 145.0
    progress._maybe_line()
    assert lines[-1].endswith("; a model call in flight: 45 s since the last one (failed) settled"), lines


def test_on_a_terminal_each_bar_notes_a_call_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bars get the same note, refreshed every second, and lose it once a call settles."""
    progress, clock, _ = _progress_at(monkeypatch)
    clock.now = 41.0
    assert progress.bar_note() == "a model call in flight: 41 s since the run started"
    assert {progress.bars.tasks[t].fields["note"] for t in progress.tasks.values()} == {
        "a model call in flight: 41 s since the run started"}
    progress.on_call({"ok": True, "inputTokens": 3400, "outputTokens": 1})
    assert progress.bar_note() == ""
    assert all(progress.bars.tasks[t].fields["note"] == "" for t in progress.tasks.values())
