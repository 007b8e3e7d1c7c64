"""``harness power``: the n per group a two-sided Fisher exact test needs, by enumeration (X-41)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.analysis import n_for_power, power
from harness.cli import app

runner = CliRunner()
FIXED = Path(__file__).resolve().parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"


def test_ninety_vs_thirty_needs_twelve_per_group() -> None:
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "α = 0.05: n = 12 per group reaches power 0.8" in result.output
    assert "12 ←" in result.output and "0.826" in result.output and "0.755" in result.output  # n = 11 falls short


def test_json_table_is_exact_power_around_the_answer() -> None:
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--json"])
    data = json.loads(result.stdout)
    assert data["n"] == 12 and data["alpha"] == 0.05 and data["targetPower"] == 0.8
    assert [r["n"] for r in data["table"]] == list(range(9, 16))
    assert all(r["power"] == pytest.approx(power(0.9, 0.3, r["n"])) for r in data["table"])


def test_alpha_and_power_options() -> None:
    data = json.loads(runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--alpha", "0.01",
                                          "--power", "0.9", "--json"]).stdout)
    assert data["n"] == n_for_power(0.9, 0.3, alpha=0.01, target=0.9) and data["n"] > 12


def test_not_reached_within_max_n_is_said() -> None:
    args = ["power", "--control", "0.9", "--treatment", "0.8", "--max-n", "20"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "no n up to 20 per group reaches power 0.8" in result.output
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert data["n"] is None and data["table"][-1]["n"] == 20


@pytest.mark.parametrize("args, message", [
    (["--control", "1.2", "--treatment", "0.3"], "--control 1.2: must be in [0, 1] (a pass rate)"),
    (["--control", "0.9", "--treatment", "-0.1"], "--treatment -0.1: must be in [0, 1]"),
    (["--control", "0.5", "--treatment", "0.5"], "there is no difference to find"),
    (["--control", "0.9"], "give both --control P0 and --treatment P1"),
    (["--control", "0.9", "--treatment", "0.3", "--alpha", "0"], "--alpha 0: must be in (0, 1)"),
    (["--control", "0.9", "--treatment", "0.3", "--max-n", "0"], "--max-n 0: must be between 1 and 1000"),
])
def test_clear_errors_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["power", *args], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_plan_prints_its_review() -> None:
    result = runner.invoke(app, ["power", "--plan", str(FIXED)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "smallest two-sided Fisher p any outcome can reach is 0.10 (3/3 vs 0/3)" in result.output
    data = json.loads(runner.invoke(app, ["power", "--plan", str(FIXED), "--json"]).stdout)
    assert data["design"]["problems"] == 4


def test_plan_that_does_not_load_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["power", "--plan", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "no such file" in result.output
