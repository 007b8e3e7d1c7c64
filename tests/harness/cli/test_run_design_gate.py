"""``harness run --dry-run`` shows the design review ``harness validate`` shows (X-41, O-25), and
``harness run --strict`` exits 5 on a design problem before any model call or run directory, after the
exit-2 checks (O-24); a sweep is gated the same way."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import FIXED_PLAN

runner = CliRunner()
PROBE = FIXED_PLAN.parents[1] / "local-placement-probe" / "experiment-plan.json"
WIDE = {"COLUMNS": "250"}


def test_dry_run_shows_the_same_review_as_validate() -> None:
    dry = runner.invoke(app, ["run", str(FIXED_PLAN), "--dry-run"], env=WIDE)
    assert dry.exit_code == 0, dry.output  # without --strict a design problem does not fail
    validate = runner.invoke(app, ["validate", str(FIXED_PLAN)], env=WIDE)
    said = [line for line in validate.output.splitlines() if line.startswith(("design problem:", "design note:",
                                                                               "  fix:"))]
    assert len(said) == 9 and [line for line in dry.output.splitlines() if line in said] == said  # same, same order
    review = dry.output[dry.output.index("design: what each comparison"):]
    assert review.count("never") == 20  # the table: at n = 3 and 2 no comparison can cross the family's cut-off
    assert "dry run: no model was called" in dry.output


def test_strict_run_exits_5_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(FIXED_PLAN), "--strict", "--out", str(out)], env=WIDE)
    assert result.exit_code == 5, result.output
    assert "--strict: 4 design problem(s); nothing ran" in result.output
    assert "tool_continuation: at n = 2 per group A vs v1" in result.output  # the review says why
    assert not out.exists()


def test_strict_dry_run_prints_the_review_then_exits_5() -> None:
    result = runner.invoke(app, ["run", str(FIXED_PLAN), "--strict", "--dry-run"], env=WIDE)
    assert result.exit_code == 5
    assert "dry run: no model was called" in result.output and "--strict: 4 design problem(s) (exit 5)" in result.output


def test_strict_judges_the_plan_as_overridden(tmp_path: Path) -> None:
    """Sampled, 5 repeats in each stage compared (where a complete difference crosses the family's cut-off): the
    review of the plan as it would run finds no problem."""
    result = runner.invoke(app, ["run", str(FIXED_PLAN), "--strict", "--dry-run", "--temperature", "0.7", "--seed",
                                 "1", "--repeats", "simple=5", "--repeats", "tool_continuation=5"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "design problem" not in result.output


def test_invalid_input_exits_2_before_the_design_gate(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(FIXED_PLAN), "--strict", "--group", "nope"], env=WIDE)
    assert result.exit_code == 2 and "--group nope: no such group" in result.output


def test_strict_sweep_exits_5_and_a_good_plan_passes(tmp_path: Path) -> None:
    sweep = runner.invoke(app, ["run", str(FIXED_PLAN), "--strict", "--model", "scripted/oracle", "--model",
                                "scripted/prefill-continuer", "--out", str(tmp_path / "sweep")], env=WIDE)
    assert sweep.exit_code == 5, sweep.output
    assert not (tmp_path / "sweep").exists()
    probe = runner.invoke(app, ["run", str(PROBE), "--strict", "--dry-run", "--model", "scripted/oracle"], env=WIDE)
    assert probe.exit_code == 0, probe.output
