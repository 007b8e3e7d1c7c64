"""`harness validate` and `harness schema` (X-1, O-24, Q-14): exit 2 with JSON-path errors, never a traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plan_data import FIXED_PLAN, fixed_plan_data
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import plan_json_schema_text

runner = CliRunner()


def _validate(tmp_path: Path, content: str | dict[str, Any], *extra: str) -> Any:
    path = tmp_path / "plan.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return runner.invoke(app, ["validate", str(path), *extra])


def _assert_clean_exit_2(result: Any) -> str:
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return str(result.output)


def test_valid_plan_prints_valid_and_summary() -> None:
    result = runner.invoke(app, ["validate", str(FIXED_PLAN)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "valid"
    assert "sha256 " in result.output and "at most 37 trial(s)" in result.output
    for stage in ("simple", "tool_continuation", "conversation"):
        assert stage in result.output
    prefix_row = next(line for line in lines if line.startswith("│ prefix"))
    assert prefix_row.count("—") == 2  # the baseline takes part in the conversation stage only


def test_valid_plan_json_output() -> None:
    result = runner.invoke(app, ["validate", str(FIXED_PLAN), "--json"])
    data = json.loads(result.output)
    assert data["valid"] is True and data["id"] == "unified-mapping-ab-20261005" and len(data["sha256"]) == 64


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["stages"][0].update(repeats="3"), "$.stages[0].repeats"),
    (lambda d: d["groups"][1]["protocol"]["options"].update(stateMessagePlacement="system"),
     "$.groups[1].protocol.options.stateMessagePlacement"),
    (lambda d: d["agent"].update(systemPrompt="你是项目助理。"),
     "$.agent.systemPrompt: must contain {{context_protocol}}"),
    (lambda d: d["stages"][2]["trialChecks"].append({"name": "vibes_ok"}), "$.stages[2].trialChecks[6]: unknown check"),
    (lambda d: d.update(budget=[]), "$.budget"),
])
def test_q14_invalid_plans_exit_2_with_json_paths(tmp_path: Path, mutate: Any, expected: str) -> None:
    data = fixed_plan_data()
    mutate(data)
    out = _assert_clean_exit_2(_validate(tmp_path, data))
    assert expected in out


def test_q14_broken_json_exit_2(tmp_path: Path) -> None:
    text = FIXED_PLAN.read_text(encoding="utf-8")
    out = _assert_clean_exit_2(_validate(tmp_path, text[: len(text) // 2]))
    assert "$: invalid JSON at line" in out


def test_q14_missing_file_exit_2(tmp_path: Path) -> None:
    out = _assert_clean_exit_2(runner.invoke(app, ["validate", str(tmp_path / "nope.json")]))
    assert "no such file" in out


def test_q14_errors_as_json(tmp_path: Path) -> None:
    data = fixed_plan_data()
    data["stop"]["infraRetries"] = -1
    result = _validate(tmp_path, data, "--json")
    assert result.exit_code == 2
    assert json.loads(result.output)["errors"] == [
        "$.stop.infraRetries: Input should be greater than or equal to 0 (got -1)"]


def test_x22_unknown_price_refused_when_budgeted(tmp_path: Path) -> None:
    data = fixed_plan_data()
    data["models"]["agent"] = "openai/no-such-model-xyz"
    out = _assert_clean_exit_2(_validate(tmp_path, data))
    assert "$.models.agent: no price known for 'openai/no-such-model-xyz'" in out
    data["models"]["prices"] = {"openai/no-such-model-xyz": {"inputPerMTok": 0.1, "outputPerMTok": 0.4}}
    assert _validate(tmp_path, data).exit_code == 0
    data["models"]["prices"] = {}
    data["budget"]["maxUsd"] = None
    assert _validate(tmp_path, data).exit_code == 0


def _json_values() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=6,
    )


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), value=_json_values())
def test_q14_fuzzed_plans_never_traceback(tmp_path: Path, seed: int, value: Any) -> None:
    """Replace one random node of the fixed plan with random JSON: exit 0 or 2, never a traceback."""
    data = fixed_plan_data()
    paths = [p for p in _paths(data) if p]
    target = random.Random(seed).choice(paths)
    node = data
    for part in target[:-1]:
        node = node[part]
    node[target[-1]] = value
    result = _validate(tmp_path, data)
    assert result.exit_code in (0, 2), (target, value, result.output, result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert "$" in result.output


def test_schema_command_writes_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "plan.schema.json"
    result = runner.invoke(app, ["schema", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == plan_json_schema_text()
    printed = runner.invoke(app, ["schema", "--out", "-"])
    assert "$schema" in json.loads(printed.output)["properties"]  # plans may name their schema
    assert json.loads(printed.output)["title"] == "Experiment plan (placement harness)"
