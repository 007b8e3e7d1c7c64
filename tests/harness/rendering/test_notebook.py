"""O-13, O-20, X-41, X-52: notebooks/placement_analysis.ipynb runs top to bottom headless (nbclient)
on a fresh scripted run and the run fixture, and the numbers behind its gating table and figures
(read back from the figures' bars) match each run's report.json."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from typer.testing import CliRunner

from harness.cli import app
from tests.harness.rendering.run_fixture import build_run

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks/placement_analysis.ipynb"
PLAN = ROOT / "plans/unified-mapping-ab-20261005/experiment-plan.json"
KERNEL = "placement-analysis-venv"


def _kernel_in(tmp: Path) -> Path:
    """A kernel spec that runs this interpreter (the venv's), found first through JUPYTER_PATH."""
    spec = tmp / "jupyter/kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "venv", "language": "python"}),
                                      encoding="utf-8")
    return tmp / "jupyter"


def _execute(runs: list[Path], tmp: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    export = tmp / "export.json"
    monkeypatch.setenv("JUPYTER_PATH", str(_kernel_in(tmp)))
    monkeypatch.setenv("PLACEMENT_RUNS", os.pathsep.join(map(str, runs)))
    monkeypatch.setenv("PLACEMENT_NOTEBOOK_EXPORT", str(export))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=60, kernel_name=KERNEL, resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    data: dict[str, Any] = json.loads(export.read_text(encoding="utf-8"))
    return data


def _stages(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(group, stage) → the stage report, for the stages with trials."""
    return {(g["id"], s["id"]): s for g in report["groups"] for s in g["stages"] if s["trials"]}


def _check_run(label: str, run: Path, exported: dict[str, Any]) -> None:
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    stages = _stages(report)
    gating = {(r["group"], r["stage"]): r for r in exported["gating"] if r["run"] == label}
    assert set(gating) == set(stages)
    bars = exported["figures"][f"pass_rate/{label}"]
    for key, stage in stages.items():
        rate, row = stage["passRate"], gating[key]
        assert (row["passes"], row["n"]) == (rate["passes"], rate["n"]), key
        assert [row["wilson_low"], row["wilson_high"]] == pytest.approx(rate["wilson95"], abs=1e-9), key
        assert row["pass_hat_k"] == pytest.approx(stage["passHatK"], abs=1e-9), key
        if rate["n"]:
            assert bars[f"0:{key[1]}"][key[0]] == pytest.approx(rate["value"]), key
        assert exported["figures"]["compare"][f"0:{label}"][f"{key[0]}/{key[1]}"] == pytest.approx(rate["value"])


def test_notebook_reproduces_gating_and_plots_of_a_fresh_scripted_run_and_compares_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scripted = tmp_path / "scripted-run"
    result = CliRunner().invoke(app, ["run", str(PLAN), "--model", "scripted/prefill-continuer", "--out",
                                      str(scripted), "--group", "A", "--group", "B", "--stage", "simple"])
    assert result.exit_code == 0, result.output
    fixture = build_run(tmp_path / "fixture-run")

    exported = _execute([scripted, fixture], tmp_path, monkeypatch)

    assert list(exported["runs"]) == ["scripted-run", "fixture-run"]
    _check_run("scripted-run", scripted, exported)
    _check_run("fixture-run", fixture, exported)
    # A (trailing assistant state) failed and B passed under the prefill-continuing model
    assert exported["figures"]["pass_rate/scripted-run"]["0:simple"] == {"A": 0.0, "B": 1.0}
    # cost figure: input tokens and repeated tool calls per group equal the report's stage metrics
    report = json.loads((scripted / "report.json").read_text(encoding="utf-8"))
    cost = exported["figures"]["cost/scripted-run"]
    for g in report["groups"]:
        metrics = [s["metrics"] for s in g["stages"] if s["trials"]]
        assert cost["2:input"][g["id"]] == sum(m["inputTokens"] for m in metrics)
        assert cost["2:cached"][g["id"]] == sum(m["cachedInputTokens"] for m in metrics)
        assert cost["1:repeated"][g["id"]] == sum(m["repeatedToolCalls"] for m in metrics)
    # the fixture's A trials repeat a tool call once each (6 trials)
    assert exported["figures"]["cost/fixture-run"]["1:repeated"] == {"A": 6.0, "B": 0.0, "C": 0.0}
