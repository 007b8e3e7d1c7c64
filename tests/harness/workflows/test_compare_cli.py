"""`harness compare DIR DIR…` (O-13): attaches each run's metrics.duckdb and prints one table."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from harness.metrics import MetricsWriter
from harness.workflows import load_runs
from tests.harness.metrics.metrics_data import synthetic_rows

runner = CliRunner()


def _run_dir(tmp_path: Path, name: str, label: str | None = None) -> Path:
    run = tmp_path / name
    with MetricsWriter.open(run / "metrics.duckdb") as writer:
        for table, rows in synthetic_rows(experiment_id=name, label=label).items():
            writer.write(table, rows)
    return run


def test_o13_compare_prints_one_table(tmp_path: Path) -> None:
    one, two = _run_dir(tmp_path, "run-1"), _run_dir(tmp_path, "run-2", label="gpt run")
    result = runner.invoke(app, ["compare", str(one), str(two)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "run-1 (scripted/oracle)" in out and "gpt run" in out
    assert out.count("2/3 passed") == 2  # A/simple in each run
    assert "$0.0650 · 775 tok · 1 rep" in out
    assert "$? · " in out  # B's unknown price stays unknown
    lines = out.splitlines()
    simple = next(i for i, line in enumerate(lines) if "│ A " in line and "simple" in line)
    assert simple > 0
    # stages in the order they ran: simple before conversation
    assert out.index("simple") < out.index("conversation")


def test_o13_compare_json(tmp_path: Path) -> None:
    one = _run_dir(tmp_path, "run-1")
    result = runner.invoke(app, ["compare", str(one / "metrics.duckdb"), "--json"])
    data = json.loads(result.output)["runs"]
    assert data[0]["label"] == "run-1 (scripted/oracle)"
    assert {(r["group_id"], r["stage_id"]) for r in data[0]["rows"]} == {
        ("A", "simple"), ("B", "simple"), ("prefix", "conversation")}


def test_compare_missing_or_broken_run_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "no metrics.duckdb" in result.output
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "metrics.duckdb").write_text("not a database", encoding="utf-8")
    result = runner.invoke(app, ["compare", str(bad)])
    assert result.exit_code == 2 and "not a readable metrics database" in result.output
    assert "Traceback" not in result.output


def test_load_runs_reads_stage_order(tmp_path: Path) -> None:
    run = load_runs([_run_dir(tmp_path, "r")])[0]
    assert run.stage_order == ["simple", "conversation"]
    assert run.group_order == ["A", "B", "prefix"]
