"""``harness run`` as a command: invalid input exits 2 naming every problem by JSON path (X-1,
O-24, Q-14); --dry-run calls no model (O-25)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import FIXED_PLAN, plan_data


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args])
    return result.exit_code, result.output


def test_invalid_plan_exits_2_naming_each_problem_by_json_path_X1(tmp_path: Path) -> None:
    data = plan_data()
    data["stages"][0]["repeats"] = "three"
    data["groups"][0]["protocol"]["options"] = {"stateMessagePlacement": "sideways"}
    data["agent"]["systemPrompt"] = "no placeholder here"
    data["stages"][1]["turns"][0]["checks"].append({"name": "answer_is_nice"})
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, output = _invoke(str(path), "--out", str(tmp_path / "run"))
    assert code == 2
    for where in ("$.stages[0].repeats", "$.groups[0].protocol.options", "$.agent.systemPrompt",
                  "$.stages[1].turns[0].checks[2]"):
        assert where in output, where
    assert "Traceback" not in output
    assert not (tmp_path / "run").exists()


def test_not_json_and_unknown_selection_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("{not json", encoding="utf-8")
    assert _invoke(str(path))[0] == 2
    code, output = _invoke(str(FIXED_PLAN), "--group", "Z", "--dry-run")
    assert code == 2 and "--group Z: no such group" in output


def test_mixing_scripted_and_real_models_is_refused_X42(tmp_path: Path) -> None:
    code, output = _invoke(str(FIXED_PLAN), "--maintainer-model", "openai/gpt-4o-mini", "--out", str(tmp_path / "r"))
    assert code == 2 and "never mixed" in output


def test_dry_run_prints_what_would_run_and_calls_no_model_O25(tmp_path: Path) -> None:
    code, output = _invoke(str(FIXED_PLAN), "--dry-run", "--out", str(tmp_path / "run"))
    assert code == 0, output
    assert "37 trial(s)" in output and "model calls" in output and "no model was called" in output
    assert not (tmp_path / "run").exists()


def test_completed_run_exits_0_and_prints_where_the_report_is(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = _invoke(str(FIXED_PLAN), "--group", "v1", "--stage", "simple", "--out", str(out))
    assert code == 0, output
    assert str(out / "report.json") in output.replace("\n", "")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [g["id"] for g in report["groups"]] == ["v1"]
    assert any("--stage" in c for c in report["caveats"])
