"""``harness rescore`` of a run with a sequential stage (X-12, O-2): the stage that stopped at a look stays
complete there (its status from the trials it ran, not ``skipped``), its looks and the design review are
stated again from the plan it judges with, and a plan with other looks is refused (other trials would have run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.plan import parse_plan
from harness.workflows import RescoreRefused, rescore
from tests.harness.runner._run import outcomes, run_plan
from tests.harness.runner.test_sequential_stopping import UNIFIED, sequential_plan


def test_rescore_keeps_the_stop_and_restates_the_looks(tmp_path: Path) -> None:
    run = run_plan(tmp_path / "run", "scripted/prefill-continuer", sequential_plan(), stages=["simple"])
    again = rescore(run.run_dir, render=False)
    report = again.report
    assert again.changes == [] and again.trials_changed == 0
    assert {g.id: s.status for g in report.groups for s in g.stages} == {g: outcomes(run)[g]["simple"]
                                                                         for g in UNIFIED}
    assert report.sequential is not None and report.sequential[0].stoppedAt == 2
    assert report.design is not None and report.design.alpha == 0.05

    other = sequential_plan()
    other["stages"][0]["sequential"]["looks"] = [10, 20]
    plan, sha = parse_plan(other)
    with pytest.raises(RescoreRefused, match=r"sequential"):
        rescore(run.run_dir, plan, sha, render=False)
    assert "sequential" in json.loads((run.run_dir / "report.json").read_text(encoding="utf-8"))
