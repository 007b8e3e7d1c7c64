"""A sequential stage (X-12, X-41) keeps working through the response cache and in a model sweep: the
cached rerun asks nothing of a model and stops at the same look; a sweep stops each model's stage where
that model's own trials cross, and runs a model without a difference to the last look."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import run_plan
from tests.harness.runner.test_sequential_stopping import UNIFIED, sequential_plan


def _simple(report: dict[str, Any]) -> dict[str, Any]:
    (seq,) = report["sequential"]
    assert seq["stage"] == "simple"
    return seq  # type: ignore[no-any-return]


def test_a_cached_rerun_of_a_sequential_stage_calls_no_model_and_stops_at_the_same_look(tmp_path: Path) -> None:
    cache, data = tmp_path / "cache", sequential_plan()
    kw: dict[str, Any] = {"cache_dir": cache, "stages": ["simple"], "concurrency": 8}
    first = run_plan(tmp_path / "one", "scripted/prefill-continuer", data, **kw)
    second = run_plan(tmp_path / "two", "scripted/prefill-continuer", data, **kw)
    one, two = (json.loads((o.run_dir / "report.json").read_text(encoding="utf-8")) for o in (first, second))
    assert _simple(one)["stoppedAt"] == _simple(two)["stoppedAt"] == 2 and _simple(two)["ranTo"] == 8
    spent = two["budget"]["spent"]
    assert spent["llmCalls"] == 0 and spent["cachedResponses"] == one["budget"]["spent"]["llmCalls"] > 0


def test_a_sweep_stops_each_models_sequential_stage_by_its_own_trials(tmp_path: Path) -> None:
    plan, out = tmp_path / "plan.json", tmp_path / "sweep"
    plan.write_text(json.dumps(sequential_plan()), encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(plan), "--stage", "simple", "--model", "scripted/prefill-continuer",
                                      "--model", "scripted/oracle", "--concurrency", "8", "--max-total-tokens",
                                      "1200000", "--max-llm-calls", "800", "--out", str(out)])
    assert result.exit_code == 0, result.output
    reports = {d.name: json.loads((d / "report.json").read_text(encoding="utf-8"))
               for d in out.iterdir() if (d / "report.json").is_file()}
    assert len(reports) == 2
    by_model = {r["model"]["agent"]: _simple(r) for r in reports.values()}
    assert by_model["scripted/prefill-continuer"]["stoppedAt"] == 2  # B and C 8/8 vs A 0/8 cross at look 2
    oracle = by_model["scripted/oracle"]  # no difference: a fixed design to the last look
    assert oracle["stoppedAt"] is None and oracle["ranTo"] == 20
    assert all(len(s["trials"]) == 20 for g in next(r for r in reports.values()
                                                   if r["model"]["agent"] == "scripted/oracle")["groups"]
               if g["id"] in UNIFIED for s in g["stages"] if s["id"] == "simple")
