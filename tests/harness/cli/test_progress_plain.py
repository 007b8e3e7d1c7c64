"""Issue 12: without a terminal (nohup, CI) `harness run` prints plain progress lines: at the start,
as groups enter and leave stages, at least every PROGRESS_EVERY_S seconds (trials done / planned,
calls, tokens, errors), and at the end. The interval is shrunk here instead of sleeping."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import _progress, app
from tests.harness.runner._run import FIXED_PLAN


def _run(tmp_path: Path) -> str:
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--group", "A", "--group", "v1", "--stage", "simple",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    return result.output


def test_plain_progress_lines_without_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", 0.0)  # every event is past the interval
    out = _run(tmp_path)
    lines = [line for line in out.splitlines() if re.match(r"\[\s*\d+ s\] ", line)]
    assert lines[0].endswith("concurrency 4; a progress line at least every 0 s")
    assert "run started: at most 6 trials (simple 6), model scripted/oracle" in lines[0]
    assert "stage simple: started (first group: A)" in out
    assert re.search(r"stage simple: group A passed \(passed 3\); \d/6 trials done", out)
    assert re.search(r"stage simple: group v1 passed \(passed 3\)", out)
    periodic = [line for line in lines if "] progress: " in line]
    assert len(periodic) >= 6  # one per settled call and per trial at this interval
    assert re.search(r"progress: \d/6 trials done, \d+ model calls, [\d,]+ tokens, errors: 0 calls, 0 trials",
                     periodic[-1])
    assert lines[-1].split("] ", 1)[1].startswith("run finished: 6/6 trials done, 6 model calls")
    assert "\x1b[" not in out  # no bar, no terminal control sequences


def test_periodic_lines_wait_for_the_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _progress.PROGRESS_EVERY_S == 30.0  # the documented default
    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", 1e9)
    out = _run(tmp_path)
    assert "run started" in out and "stage simple: group A passed" in out and "run finished: 6/6" in out
    assert "] progress: " not in out  # start, stage and end lines only: the interval never passed


def test_a_refused_run_prints_no_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress begins once the run really started: a directory another process holds, a read-only
    --out and an unusable --cache are refused (exit 2) with no "run started … run finished" before
    the error."""
    from harness.runner import _persist, exclusive

    def refused(*args: str) -> str:
        result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--group", "A", "--stage", "simple", *args])
        assert result.exit_code == 2, result.output
        assert "error: " in result.output
        assert "run started" not in result.output and "run finished" not in result.output, result.output
        return result.output

    done = tmp_path / "done"
    assert "run finished: 6/6" in _run(tmp_path)  # plain lines when the run does start
    CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--out", str(done)])
    with exclusive(done, "another harness run"):  # a second, concurrent --resume of the directory
        assert "is in use by" in " ".join(refused("--resume", str(done)).split())
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    refused("--out", str(tmp_path / "new"), "--cache", str(a_file))

    def read_only(*_args: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(_persist, "_write_json", read_only)
    assert "Read-only file system" in refused("--out", str(tmp_path / "ro"))


class _FakeTime:
    """A clock and the ticker's stop event in one: ``wait(t)`` advances the clock by ``t`` at once,
    firing the events planned on the way (a stage line from the run's loop) at their own times."""

    def __init__(self, events: list[tuple[float, Callable[[], None]]], horizon: float) -> None:
        self.now, self.events, self.horizon, self.waits = 0.0, sorted(events, key=lambda e: e[0]), horizon, 0

    def __call__(self) -> float:
        return self.now

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        assert timeout is not None and self.waits < 10_000, "the ticker must wait a finite, non-zero time"
        target = self.now + timeout
        while self.events and self.events[0][0] <= target:
            when, event = self.events.pop(0)
            self.now = when
            event()
        self.now = target
        return self.now >= self.horizon  # "stopped": the run ended


@pytest.mark.parametrize("every", [3.0, 30.0])
def test_no_gap_between_lines_is_longer_than_the_interval(monkeypatch: pytest.MonkeyPatch, every: float) -> None:
    """The ticker sleeps until the next line is due, so stage lines at odd times (which restart the
    interval) never stretch a gap past it: ticking at a third of the interval gave gaps of up to
    4/3 of it (36–40 s for 30 s)."""
    from harness.plan import parse_plan
    from harness.runner import RunRequest, Settings
    from tests.harness.runner._run import plan_data

    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", every)
    plan, sha = parse_plan(plan_data())
    progress = _progress.Progress(RunRequest(plan=plan, plan_sha256=sha, plan_path="p.json", out_dir=Path("-"),
                                             settings=Settings(agent_model="m", maintainer_model="m")), plain=True)
    stage_times = [every * k for k in (0.2, 1.7, 1.75, 4.1, 9.9)]
    fake = _FakeTime([(t, lambda t=t: progress.on_stage("start", "A", f"s{t}", None)) for t in stage_times],
                     every * 20)
    times: list[float] = []
    real_line = progress._line

    def line(text: str) -> None:
        times.append(fake.now)
        real_line(text)

    monkeypatch.setattr(progress, "_clock", fake)
    monkeypatch.setattr(progress, "_stop", fake)
    monkeypatch.setattr(progress, "_line", line)
    progress._last = 0.0
    progress._tick()
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
    assert len(times) >= 18 and all(0 < g <= every + 1e-9 for g in gaps), gaps
    assert [t for t in stage_times if t in times] == stage_times  # each stage line, then the interval restarts


def test_a_stopped_run_says_so_and_its_resume_counts_each_trial_once(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """After a resume the lines counted superseded attempts too ("39/37 trials done", "group v1 passed
    (passed 2, skipped 2)"), and a run that stopped early ended with "run finished: 16/16 trials done"."""
    monkeypatch.setattr(_progress, "PROGRESS_EVERY_S", 0.0)
    out = tmp_path / "run"
    args = ["run", str(FIXED_PLAN), "--group", "A", "--group", "v1", "--stage", "simple", "--concurrency", "1"]
    first = CliRunner().invoke(app, [*args, "--out", str(out), "--max-llm-calls", "2"])
    assert first.exit_code != 0 and "budget_exhausted:llmCalls" in first.output, first.output
    last = [line for line in first.output.splitlines() if re.match(r"\[\s*\d+ s\] ", line)][-1]
    assert re.search(r"run stopped \(budget_exhausted:llmCalls\): [0-2] of the 6 planned trials decided "
                     r"\(passed or failed\); 2 model calls", last), last
    assert "run finished" not in first.output and "trials done" not in last
    resumed = CliRunner().invoke(app, [*args, "--resume", str(out), "--max-llm-calls", "100"])
    assert resumed.exit_code == 0, resumed.output
    counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) trials done", resumed.output)]
    assert counts and all(a <= b == 6 for a, b in counts), counts
    assert "run finished: 6/6 trials done" in resumed.output
    assert re.search(r"stage simple: group A passed \(passed 3\);", resumed.output), resumed.output
    assert re.search(r"stage simple: group v1 passed \(passed 3\);", resumed.output), resumed.output
    # the stopped run's skips were re-run: no stage line and not the last line counts them (a progress
    # line while the resume replays the recorded attempts may: then they are the latest known)
    ends = [line for line in resumed.output.splitlines() if "] stage simple: group" in line or "] run finished" in line]
    assert len(ends) == 3 and not any("skipped" in line for line in ends), ends
