"""``harness validate`` reviews a valid plan's design (X-41, X-44); ``--strict`` exits 5 on a design problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from plan_data import FIXED_PLAN, fixed_plan_data
from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()
PROBE = FIXED_PLAN.parents[1] / "local-placement-probe" / "experiment-plan.json"
WIDE = {"COLUMNS": "250"}


def _write(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def test_fixed_plan_review_says_what_can_be_separable() -> None:
    """Boschloo's test: held in the fixed plan's family of twenty comparisons, neither simple (3 repeats) nor
    tool_continuation (2) can cross the first step whatever the model does; 5 repeats can."""
    result = runner.invoke(app, ["validate", str(FIXED_PLAN)], env=WIDE)
    assert result.exit_code == 0, result.output  # valid; without --strict a design problem does not fail
    out = result.output
    assert out.splitlines()[0] == "valid"
    assert "design: what each comparison can show (two-sided Boschloo, α = 0.05)" in out
    assert "family: adjusted for 20 comparisons (exact closed test" in out
    assert "tool_continuation: at n = 2 per group A vs v1, B vs v1, C vs v1, v2 vs v1, B vs A" in out
    assert "cannot cross the family's first-step cut-off" in out
    assert "smallest two-sided Boschloo p any outcome can reach is 0.13 (2/2 vs 0/2)" in out
    assert "a complete difference crosses it at n = 5 per group" in out
    assert "fix: raise the repeats of tool_continuation to at least 5" in out
    assert "simple: at temperature 0 this stage has one independent sample per group" in out
    assert out.count("never") == 20 and "possible" not in out  # the table: nothing crosses at n = 3 or 2


def test_strict_fails_the_fixed_plan_with_its_own_exit_code() -> None:
    result = runner.invoke(app, ["validate", str(FIXED_PLAN), "--strict"], env=WIDE)
    assert result.exit_code == 5, result.output
    assert "--strict: 4 design problem(s) (exit 5)" in result.output


def test_strict_json_carries_the_review() -> None:
    result = runner.invoke(app, ["validate", str(FIXED_PLAN), "--strict", "--json"])
    assert result.exit_code == 5
    data = json.loads(result.stdout)
    assert data["valid"] is True and data["design"]["problems"] == 4 and data["design"]["test"] == "boschloo"
    simple = [c for c in data["design"]["comparisons"] if c["stage"] == "simple"]
    assert [round(c["smallestP"], 3) for c in simple] == [0.031] * 10
    assert {f["kind"] for f in data["design"]["findings"]} == {"not-separable", "one-sample"}


def test_strict_passes_the_local_probe() -> None:
    result = runner.invoke(app, ["validate", str(PROBE), "--strict"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "design: no problem found" in result.output and "possible" in result.output
    data = json.loads(runner.invoke(app, ["validate", str(PROBE), "--strict", "--json"]).stdout)
    assert data["design"]["problems"] == 0 and len(data["design"]["comparisons"]) == 4


def test_unbound_agent_names_compression_readback_and_the_fix(tmp_path: Path) -> None:
    data = fixed_plan_data()
    del data["agent"]["contextMaintainer"]  # a plan written before the binding existed
    path = _write(tmp_path, data)
    result = runner.invoke(app, ["validate", path], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "compression_readback is required in conversation, but the agent is not bound to the context" in out
    assert "Every trial of A, B, C, v2, v1 would fail as not_exercised." in out
    assert "fix: bind agent.contextMaintainer (true); or lower maintenance.thresholdTokens below about" in out
    assert 'or mark compression_readback "required": false in conversation.' in out
    assert runner.invoke(app, ["validate", path, "--strict"]).exit_code == 5


def test_an_expected_effect_adds_power_columns(tmp_path: Path) -> None:
    data = json.loads(PROBE.read_text(encoding="utf-8"))
    data["analysis"] = {"effect": {"control": 0.9, "treatment": 0.3}}
    result = runner.invoke(app, ["validate", _write(tmp_path, data), "--strict"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "power (0.9 vs 0.3)" in result.output and "n for 80%" in result.output
    assert "0.99" in result.output and "10" in result.output
