"""Model sweeps (issue 13): ``harness run PLAN --model M1 --model M2 --out D`` runs the plan once per
model into one directory, with one shared budget, a model × group × stage table and findings across
models that give n and Fisher p per model and never pool models into one sample."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import parse_plan
from harness.results import read_report, read_sweep
from harness.runner import RunOutcome, RunRequest, Settings, budget_stop, execute
from harness.workflows import SweepRequest, execute_sweep
from tests.harness.conftest import SWEPT
from tests.harness.runner._run import FIXED_PLAN, plan_data


def _cell(sweep: Any, model: str, group: str, stage: str) -> Any:
    return next(c for c in sweep.table if (c.model, c.group, c.stage) == (model, group, stage))


def test_fixed_plan_sweep_lists_both_models_and_A_simple_passes_then_fails(fixed_sweep: tuple[Path, int, str]) -> None:
    out, code, output = fixed_sweep
    assert code == 0, output
    sweep = read_sweep(out)
    assert [m.model for m in sweep.models] == list(SWEPT)
    assert all(m.status == "completed" for m in sweep.models)
    for m in sweep.models:  # each model's ordinary run directory
        report = read_report(out / m.slug / "report.json")
        assert report.model.agent == m.model and (out / m.slug / "metrics.duckdb").is_file()
    oracle, prefill = (_cell(sweep, m, "A", "simple") for m in SWEPT)
    assert (oracle.status, oracle.passes, oracle.n) == ("passed", 3, 3)
    assert (prefill.status, prefill.passes, prefill.n) == ("failed", 0, 3)
    assert prefill.wilson95 is not None and prefill.failureModes and sum(prefill.failureModes.values()) == 3
    assert _cell(sweep, SWEPT[1], "B", "simple").status == "passed"
    assert (out / "sweep.html").is_file() and (out / "sweep.md").is_file()


def test_cross_model_finding_names_each_model_with_n_and_p(fixed_sweep: tuple[Path, int, str]) -> None:
    out, _, output = fixed_sweep
    sweep = read_sweep(out)
    a = next(f for f in sweep.findings if f.group == "A" and f.stage == "simple")
    assert a.rule == "sweep/failed-on-some-models"
    assert a.statement.startswith("A failed simple on 1 of 2 models: scripted/prefill-continuer (A failed 0/3")
    assert "It passed on scripted/oracle (A passed 3/3 vs v1 3/3, Boschloo p = 1.0" in a.statement
    # at the plan's temperature 0 each model's 3 identical answers are one sample: 0/3 vs 3/3 (p = 0.031) is
    # compared on its distinct answers, 0/1 vs 1/1, and is not separable
    assert ("vs v1 3/3, Boschloo p = 0.031 (identical repeats: on the distinct answers 0/1 vs 1/1, p = 0.50), "
            "adjusted p = 1.0, not separable at this n") in a.statement
    # 10 pairs × 2 stages on the oracle, 10 + 3 on prefill-continuer (A and v2 never reached tool_continuation)
    assert sweep.family is not None and sweep.family.comparisons == 33
    per = {e.model: e for e in a.perModel}
    assert set(per) == set(SWEPT)
    assert (per[SWEPT[1]].passes, per[SWEPT[1]].n, round(per[SWEPT[1]].pValue or 0, 3)) == (0, 3, 0.031)
    assert per[SWEPT[1]].separable is False and per[SWEPT[1]].test == "boschloo" and per[SWEPT[1]].adjustedP == 1.0
    assert (per[SWEPT[0]].passes, per[SWEPT[0]].n, per[SWEPT[0]].pValue) == (3, 3, 1.0)
    assert "never added up across models" in a.doesNotShow
    stage = next(f for f in sweep.findings if f.rule == "sweep/simple/some-models-failed")
    assert "on scripted/oracle no group failed (A 3/3, B 3/3, C 3/3, v2 3/3, v1 3/3)" in stage.statement
    rules = next(f for f in sweep.findings if f.rule == "sweep/placement-rules")
    # each model's rule with how far it goes and the n and p it rests on, judged in the sweep's family
    assert re.search(r"scripted/prefill-continuer: trailing-assistant-implicated, consistent with its trials, not "
                     r"shown at this n \(simple: A 0/3 vs B 3/3, Boschloo p = 0\.031, adjusted p = 0\.\d+, "
                     r"not separable at this n;", rules.statement)
    assert "scripted/oracle: not-reproduced, no difference claimed (simple: A 3/3, B 3/3" in rules.statement
    html = (out / "sweep.html").read_text(encoding="utf-8")
    assert "A failed simple on 1 of 2 models" in html and "scripted-prefill-continuer/report.html" in html
    assert "A failed simple on 1 of 2 models" in (out / "sweep.md").read_text(encoding="utf-8")
    assert "A failed simple on 1 of 2 models" in " ".join(output.split())


def test_compare_and_report_read_a_sweep(fixed_sweep: tuple[Path, int, str]) -> None:
    out, _, _ = fixed_sweep
    compared = CliRunner().invoke(app, ["compare", str(out), "--json"])
    assert compared.exit_code == 0, compared.output
    data = json.loads(compared.output)
    assert [r["label"] for r in data["runs"]] == list(SWEPT)
    assert data["replays"] == []  # two models never send the same request: no replay to speak of
    (out / "sweep.html").unlink()
    rendered = CliRunner().invoke(app, ["report", str(out)])
    assert rendered.exit_code == 0 and (out / "sweep.html").is_file()


def _request(out: Path, models: list[str], data: dict[str, Any], resume: bool = False, **settings: Any) -> SweepRequest:
    plan, sha = parse_plan(data)
    base = RunRequest(plan=plan, plan_sha256=sha, plan_path=str(FIXED_PLAN), out_dir=out, render=False,
                      settings=Settings(agent_model="-", maintainer_model="-", **settings))
    return SweepRequest(base=base, models=models, resume=resume)


def test_the_budget_is_shared_and_a_used_up_cap_stops_the_sweep(tmp_path: Path) -> None:
    data = plan_data()
    data["budget"]["maxLlmCalls"] = 4  # the oracle spends 3 on v1/simple; one call is left for the rest
    models = ["scripted/oracle", "scripted/last-user-follower", "scripted/repeater"]
    outcome = asyncio.run(execute_sweep(_request(tmp_path / "D", models, data, groups=["v1"], stages=["simple"])))
    sweep = outcome.sweep
    status = {m.model: (m.status, m.stopReason) for m in sweep.models}
    assert status == {models[0]: ("completed", None), models[1]: ("stopped", "budget_exhausted:llmCalls"),
                      models[2]: ("not_run", None)}
    second = next(m for m in sweep.models if m.model == models[1])
    assert second.limits is not None and second.limits.maxLlmCalls == 1  # the sweep's cap minus the oracle's 3
    assert sweep.budget.spent.llmCalls <= 4 and sweep.status == "stopped"
    assert any("scripted/repeater was not run" in c for c in sweep.caveats)


def test_a_used_up_wall_clock_stops_the_sweep_as_wall_clock_like_a_run(tmp_path: Path) -> None:
    """The same stop was `wall_clock` for a run but `budget_exhausted:wallSeconds` for a sweep."""
    data = plan_data()
    data["budget"]["maxWallSeconds"] = 0.001
    models = ["scripted/oracle", "scripted/last-user-follower"]

    async def uncapped(request: RunRequest) -> RunOutcome:  # the first model runs past the sweep's wall cap
        assert request.budget is not None
        return await execute(dataclasses.replace(request, budget=request.budget.model_copy(
            update={"maxWallSeconds": None})))

    outcome = asyncio.run(execute_sweep(_request(tmp_path / "D", models, data, groups=["v1"], stages=["simple"]),
                                        uncapped))
    assert [(m.status, m.stopReason) for m in outcome.sweep.models] == [("completed", None),
                                                                       ("not_run", "wall_clock")]
    assert outcome.sweep.stopReason == "wall_clock"
    stop = budget_stop(outcome.sweep.stopReason, outcome.sweep.budget.limits.model_dump(),
                       outcome.sweep.budget.spent.model_dump(), "the sweep's")
    assert stop is not None and stop.option[0] == "--max-wall-seconds"


def test_resume_keeps_completed_models_and_runs_the_rest(tmp_path: Path) -> None:
    data, out = plan_data(), tmp_path / "D"
    models = ["scripted/oracle", "scripted/last-user-follower"]
    ran: list[str] = []

    async def interrupted(request: RunRequest) -> RunOutcome:
        if request.settings.agent_model == models[1]:
            raise KeyboardInterrupt  # the user pressed Ctrl-C twice while the second model started
        ran.append(request.settings.agent_model)
        return await execute(request)

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(execute_sweep(_request(out, models, data, groups=["C"], stages=["simple"]), interrupted))
    assert [m.status for m in read_sweep(out).models] == ["completed", "pending"]

    async def counted(request: RunRequest) -> RunOutcome:
        ran.append(request.settings.agent_model)
        return await execute(request)

    outcome = asyncio.run(execute_sweep(_request(out, [], data, resume=True, groups=["C"], stages=["simple"]),
                                        counted))
    assert ran == models  # the oracle ran once, in the first process
    assert outcome.sweep.status == "completed"
    assert _cell(outcome.sweep, models[1], "C", "simple").status == "failed"  # C is its weak spot
    changed = plan_data()
    changed["title"] += " (edited)"
    with pytest.raises(Exception, match="never mixes two plans"):
        asyncio.run(execute_sweep(_request(out, [], changed, resume=True)))


def test_usage_errors_exit_2_before_anything_is_written(tmp_path: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), *args])
        return result.exit_code, " ".join(result.output.split())

    out = tmp_path / "D"
    code, text = run("--model", "scripted/oracle", "--model", "scripted/oracle", "--out", str(out))
    assert code == 2 and "--model listed twice" in text
    code, text = run("--model", "scripted/oracle", "--model", "openai/gpt-4o-mini", "--out", str(out))
    assert code == 2 and "never mixed" in text
    code, text = run("--model", "openai/no-such-model-x", "--model", "openai/other-model-y", "--out", str(out))
    assert code == 2 and "openai/no-such-model-x" in text and "openai/other-model-y" in text  # every price first
    code, text = run("--model", "scripted/oracle", "--model", "scripted/repeater", "--dry-run", "--out", str(out))
    assert code == 0 and "one shared budget" in text and text.count("dry run: no model was called") == 2
    assert not out.exists()
