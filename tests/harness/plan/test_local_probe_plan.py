"""Issue 12: the local placement probe plan (plans/local-placement-probe) validates, samples every
group ≥ 20 times at a temperature > 0 with per-repeat seeds, gates nothing, is budgeted in tokens,
and runs end to end (here against the scripted server standing in for llama.cpp, fewer repeats)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from harness.cli import app
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._run import run_plan

PROBE = Path(__file__).parents[3] / "plans" / "local-placement-probe" / "experiment-plan.json"


def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PROBE.read_text(encoding="utf-8"))
    return data


def test_probe_plan_is_a_sampled_ungated_token_budgeted_experiment() -> None:
    assert CliRunner().invoke(app, ["validate", str(PROBE)]).exit_code == 0
    data = _data()
    assert [g["id"] for g in data["groups"]] == ["A", "B", "C", "v2", "v1"]
    sampling = data["models"]["sampling"]
    assert sampling["temperature"] > 0 and isinstance(sampling["seed"], int)
    for stage in data["stages"]:
        assert stage["repeats"] >= 20 and stage["requires"] == [] and stage["failFast"] is False
        assert stage["groups"] == ["A", "B", "C", "v2", "v1"]
    budget = data["budget"]
    assert budget["maxUsd"] is None and budget["maxTotalTokens"] and budget["maxLlmCalls"]
    assert data["findings"]["rules"] == "placement-rates"
    assert data["models"]["apiBase"].startswith("http://127.0.0.1:")  # local: runs with its price unknown


def test_probe_plan_runs_every_group_and_compares_rates(tmp_path: Path) -> None:
    data = _data()
    data["stages"][0]["repeats"] = 3
    with running_server(
            resolve_model=get_scripted, model="oracle") as url:  # answers to any model name, here openai/qwen
        outcome = run_plan(tmp_path / "run", "openai/qwen", data, api_base=url, concurrency=4)
    assert outcome.status == "completed" and outcome.stop_reason is None
    rates = {g.id: (s.passRate.passes, s.passRate.n) for g in outcome.report.groups for s in g.stages}
    assert rates == {g: (3, 3) for g in ("A", "B", "C", "v2", "v1")}  # every group ran every repeat
    (finding,) = outcome.report.findings
    assert finding.rule == "placement-rates/no-separable-difference" and "Boschloo p = 1.0," in finding.statement
    assert outcome.report.model.prices["openai/qwen"].source == "local-unknown"
