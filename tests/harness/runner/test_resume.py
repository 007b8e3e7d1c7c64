"""Interrupt and resume (X-30, X-81, Q-10): SIGINT finishes in-flight bookkeeping and leaves a
resumable directory; --resume skips finished trials, restores the budget, refuses another plan."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from harness.results import TrialRecord
from harness.runner import ResumeRefused
from tests.harness.runner._run import ORACLE_OUTCOMES, outcomes, plan_data, run_plan


def test_sigint_then_resume_finishes_without_rerunning_finished_trials(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen: list[str] = []

    def interrupt_after_three(_event: str, record: TrialRecord) -> None:
        seen.append(record.id)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # the real signal, through the runner's handler

    first = run_plan(out, concurrency=2, on_trial=interrupt_after_three)
    assert first.status == "stopped" and first.stop_reason == "interrupted"
    assert (out / "report.json").is_file()
    finished = {r.id: r.sessionId for r in first.experiment.records if r.finished}
    assert len(finished) >= 3
    calls_before = first.report.budget.spent.llmCalls

    second = run_plan(out, resume=True, concurrency=4)
    assert second.status == "completed" and outcomes(second) == ORACLE_OUTCOMES
    sessions = {t.id: t.sessionId for g in second.report.groups for s in g.stages for t in s.trials}
    for trial_id, session in finished.items():
        assert sessions[trial_id] == session  # reused from the first process, not run again
    new = [r for r in second.experiment.records if r.id in finished and r.sessionId != finished[r.id]]
    assert new == []
    lines = (out / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert second.report.budget.spent.llmCalls == len(lines) > calls_before  # budget restored and extended


def test_resume_refuses_a_changed_plan_X5(tmp_path: Path) -> None:
    out = tmp_path / "run"
    data = plan_data()
    run_plan(out, data=data, groups=["A"], stages=["simple"])
    changed = json.loads(json.dumps(data))
    changed["title"] += " (edited)"
    with pytest.raises(ResumeRefused, match="never mixes two plans"):
        run_plan(out, data=changed, resume=True, groups=["A"], stages=["simple"])


def test_a_new_run_never_reuses_a_run_directory(tmp_path: Path) -> None:
    run_plan(tmp_path / "run", groups=["A"], stages=["simple"])
    with pytest.raises(ResumeRefused, match="already holds a run"):
        run_plan(tmp_path / "run", groups=["A"], stages=["simple"])
