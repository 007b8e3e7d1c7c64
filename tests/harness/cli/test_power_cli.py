"""``harness power``: the n per group a two-sided exact test needs (Boschloo's, or Fisher's with --test fisher),
by enumeration; a sequential design's exact power, size and expected repeats (--looks); a plan's review (X-41)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.analysis import n_for_power, power
from harness.cli import app

runner = CliRunner()
FIXED = Path(__file__).resolve().parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"


def test_ninety_vs_thirty_needs_ten_per_group_and_twelve_with_fisher() -> None:
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "two-sided Boschloo exact, α = 0.05: n = 10 per group reaches power 0.8" in result.output
    assert "10 ←" in result.output and "0.824" in result.output and "0.749" in result.output  # n = 9 falls short
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--test", "fisher"],
                           env={"COLUMNS": "120"})
    assert "two-sided Fisher exact, α = 0.05: n = 12 per group reaches power 0.8" in result.output
    assert "12 ←" in result.output and "0.826" in result.output and "0.755" in result.output  # n = 11 falls short


def test_json_table_is_exact_power_around_the_answer() -> None:
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--json", "--test", "fisher"])
    data = json.loads(result.stdout)
    assert data["n"] == 12 and data["alpha"] == 0.05 and data["targetPower"] == 0.8 and data["test"] == "fisher"
    assert [r["n"] for r in data["table"]] == list(range(9, 16))
    assert all(r["power"] == pytest.approx(power(0.9, 0.3, r["n"], test="fisher")) for r in data["table"])


def test_looks_size_a_sequential_design() -> None:
    args = ["power", "--control", "0.8", "--treatment", "0.4", "--looks", "4,8,12,16,20"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert ("two-sided Boschloo, looks at 4, 8, 12, 16, 20 repeats per group, obrien-fleming spending of α = 0.05: "
            "exact power 0.728, exact size 0.0470, 16.7 repeats per group on average (a fixed design of 20: power "
            "0.728)") in result.output
    data = json.loads(runner.invoke(app, [*args, "--test", "fisher", "--json"]).stdout)
    assert 0.04 <= data["size"] <= 0.05 and data["typeOneError"][-1] == data["size"] and len(data["thresholds"]) == 5
    assert round(data["power"], 2) == 0.73 and round(data["expectedRepeats"], 1) == 16.7
    assert round(data["fixedPower"], 2) == 0.65
    pocock = json.loads(runner.invoke(app, [*args, "--spending", "pocock", "--json"]).stdout)
    assert pocock["spending"] == "pocock" and pocock["size"] <= 0.05


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
    (["--control", "0.9", "--treatment", "0.3", "--test", "barnard"], "--test 'barnard': expected one of boschloo"),
    (["--control", "0.9", "--treatment", "0.3", "--looks", "8,4"], "the looks must be at least 1 and ascend"),
    (["--control", "0.9", "--treatment", "0.3", "--looks", "4,x"], "--looks '4,x': expected repeats per group"),
    (["--control", "0.9", "--treatment", "0.3", "--looks", "4", "--spending", "linear"], "--spending 'linear'"),
])
def test_clear_errors_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["power", *args], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_plan_prints_its_review() -> None:
    """The fixed plan's family holds twenty comparisons: at n = 3 none can cross its first step (3/3 vs 0/3,
    Boschloo p = 0.031, would be separable on its own), and at temperature 0 each stage is one sample; with Fisher's
    test, p = 0.10."""
    result = runner.invoke(app, ["power", "--plan", str(FIXED)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert ("simple: at temperature 0 this stage has one independent sample per group" in result.output
            and "a complete difference (3/3 vs 0/3) is separable: Boschloo p = 0.031." in result.output)
    data = json.loads(runner.invoke(app, ["power", "--plan", str(FIXED), "--json"]).stdout)
    assert data["design"]["problems"] == 4 and data["design"]["test"] == "boschloo"
    assert data["design"]["family"]["comparisons"] == 20 and "family: adjusted for 20 comparisons" in result.output
    result = runner.invoke(app, ["power", "--plan", str(FIXED), "--test", "fisher"], env={"COLUMNS": "250"})
    assert "simple: at n = 3 per group A vs v1, B vs v1" in result.output
    assert "cannot cross the family's first-step cut-off" in result.output
    assert "smallest two-sided Fisher p any outcome can reach is 0.10 (3/3 vs 0/3)" in result.output


def test_plan_that_does_not_load_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["power", "--plan", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "no such file" in result.output


def test_comparisons_sizes_a_family_against_one_control() -> None:
    """0.9 vs 0.3: 10 per group on its own, 11 for two comparisons held at α together (the first step's cut-off,
    about 0.033 there, with the family-wise size beside it); with --looks the design is calibrated for both."""
    result = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--comparisons", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n"] == 11 and data["comparisons"] == 2
    row = next(r for r in data["table"] if r["n"] == 11)
    assert 0.03 < row["cutoff"] < 0.035 and row["familySize"] <= 0.05 and row["power"] >= 0.8 > next(
        r for r in data["table"] if r["n"] == 10)["power"]
    looks = runner.invoke(app, ["power", "--control", "0.8", "--treatment", "0.4", "--looks", "4,8,12,16,20",
                                "--comparisons", "2", "--json"])
    assert looks.exit_code == 0 and json.loads(looks.stdout)["comparisons"] == 2
    bad = runner.invoke(app, ["power", "--control", "0.9", "--treatment", "0.3", "--comparisons", "11"])
    assert bad.exit_code == 2 and "--comparisons 11: must be between 1 and 10" in bad.output
