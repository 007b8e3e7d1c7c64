"""Q-14: hostile plan files, state files, tool arguments and command-line text give exit 2 (or a
structured tool error) naming the problem, never a traceback. Each case is one breakage of issue
#10, reproduced; large inputs are generated here, not stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import load_plan
from tests.harness.plan.plan_data import FIXED_PLAN, fixed_plan_data

runner = CliRunner()
STATE = Path(__file__).parents[2] / "protocols" / "data" / "worked_example.json"

DEEP = "[" * 20_000 + "]" * 20_000
HUGE_INT = "9" * 5_000


def _clean_2(result: Any) -> str:
    out = str(result.output)
    assert result.exit_code == 2, (out, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in out
    return out


def _write(tmp_path: Path, text: str, name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _with_regex(pattern: str) -> str:
    data = fixed_plan_data()
    data["stages"][0]["turns"][0]["checks"][0] = {"name": "answer_contains", "regexes": ["ok", pattern]}
    return json.dumps(data, ensure_ascii=False)


# 1. regexes that Python's parser rejects with more than re.error -------------------------------------
@pytest.mark.parametrize("pattern, reason", [
    ("a{4294967296}", "the repetition number is too large"),  # OverflowError
    ("(" * 1200 + ")" * 1200, "nested too deeply"),            # RecursionError
    ("a(b", "missing ), unterminated subpattern"),              # re.error, as before
])
@pytest.mark.parametrize("command", [["validate"], ["run", "--dry-run"]])
def test_q14_bad_regex_is_exit_2_at_its_json_path(tmp_path: Path, pattern: str, reason: str,
                                                   command: list[str]) -> None:
    path = _write(tmp_path, _with_regex(pattern))
    out = _clean_2(runner.invoke(app, [command[0], str(path), *command[1:]]))
    assert "$.stages[0].turns[0].checks[0].regexes[1]:" in out and reason in out


# 2. JSON that json.loads accepts or crashes on, in plans and state files --------------------------
def _plan_with(fragment: str) -> str:
    """The fixed plan with agent.inputs.extra set to ``fragment`` (raw JSON text)."""
    text = json.dumps(fixed_plan_data(), ensure_ascii=False)
    return text.replace('"inputs": {', '"inputs": {"extra": ' + fragment + ", ", 1)


HOSTILE = [
    (DEEP, "nested deeper than 64 levels"),
    (HUGE_INT, "an integer of 5000 digits"),
    ("1e999", "out of range"),
    ("NaN", "NaN is not JSON"),
    ('"\\ud800"', "lone surrogate"),
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
]


@pytest.mark.parametrize("fragment, reason", HOSTILE)
def test_q14_hostile_json_in_a_plan_is_exit_2(tmp_path: Path, fragment: str, reason: str) -> None:
    path = _write(tmp_path, _plan_with(fragment))
    assert reason in _clean_2(runner.invoke(app, ["validate", str(path)]))
    assert reason in _clean_2(runner.invoke(app, ["run", str(path), "--dry-run"]))


@pytest.mark.parametrize("fragment, reason", HOSTILE)
def test_q14_hostile_json_in_a_state_file_is_exit_2(tmp_path: Path, fragment: str, reason: str) -> None:
    """O-40/O-41: render and apply read the state file through the same strict parser."""
    text = STATE.read_text(encoding="utf-8").replace('"inputs": {', '"inputs": {"extra": ' + fragment + ", ", 1)
    path = _write(tmp_path, text, "state.json")
    render = runner.invoke(app, ["render", str(path), "--protocol", "unified@3"])
    assert reason in _clean_2(render) and str(path) in render.output
    apply = runner.invoke(app, ["apply", str(path), "--protocol", "unified@1", "--tool", "context_window_list",
                                "--args", '{"purpose": "x"}'])
    assert reason in _clean_2(apply)


def test_q14_a_whole_file_that_is_only_nesting(tmp_path: Path) -> None:
    path = _write(tmp_path, DEEP)
    assert "$: invalid JSON: nested deeper than 64 levels" in _clean_2(runner.invoke(app, ["validate", str(path)]))
    path = _write(tmp_path, '{"a":' * 20_000 + "1" + "}" * 20_000, "state.json")
    out = _clean_2(runner.invoke(app, ["render", str(path), "--protocol", "unified@3"]))
    assert "invalid JSON: nested deeper than 64 levels" in out


# 3. the duplicate-key check is linear: 100,000 keys validate (the quadratic check took 216 s) ------
def test_q14_plan_with_100k_keys_validates_and_finds_a_late_duplicate(tmp_path: Path) -> None:
    keys = ", ".join(f'"k{i}": "v"' for i in range(100_000))
    path = _write(tmp_path, _plan_with("{" + keys + "}"))
    plan, _ = load_plan(path)
    assert len(plan.agent.inputs["extra"]) == 100_000
    path = _write(tmp_path, _plan_with("{" + keys + ', "k99999": "again"}'))
    assert "duplicate key 'k99999'" in _clean_2(runner.invoke(app, ["validate", str(path)]))


# 4. user text is never read as Rich markup ---------------------------------------------------------
@pytest.mark.parametrize("path", ["/tmp/no[/]such.json", "/tmp/no[red]such.json", "/tmp/[bold]x[/bold].json"])
def test_q14_paths_print_as_written(path: str) -> None:
    out = _clean_2(runner.invoke(app, ["render", path, "--protocol", "unified@3"]))
    assert path in out and "MarkupError" not in out
    out = _clean_2(runner.invoke(app, ["compare", path]))
    assert path in out


@pytest.mark.parametrize("value", ["[/]", "[red]A", "A[/bold]"])
def test_q14_group_and_stage_values_print_as_written(value: str) -> None:
    out = _clean_2(runner.invoke(app, ["run", str(FIXED_PLAN), "--group", value, "--dry-run"]))
    assert f"--group {value}: no such group" in out
    out = _clean_2(runner.invoke(app, ["run", str(FIXED_PLAN), "--stage", value, "--dry-run"]))
    assert f"--stage {value}: no such stage" in out


def test_q14_protocol_option_text_prints_as_written() -> None:
    out = _clean_2(runner.invoke(app, ["render", str(STATE), "--protocol", "unified@3",
                                       "--option", "stateMessagePlacement=[/]"]))
    assert "[/]" in out
    deep = _clean_2(runner.invoke(app, ["render", str(STATE), "--protocol", "unified@3",
                                        "--option", f"stateMessagePlacement={DEEP}"]))
    assert "stateMessagePlacement" in deep  # a hostile --option value is a string, refused by the catalog


# 7. a stage without trials is refused -------------------------------------------------------------
def test_q14_a_stage_with_no_groups_is_refused_at_its_json_path(tmp_path: Path) -> None:
    data = fixed_plan_data()
    data["stages"][0]["groups"] = []
    path = _write(tmp_path, json.dumps(data, ensure_ascii=False))
    out = _clean_2(runner.invoke(app, ["validate", str(path)]))
    assert "$.stages[0].groups: no group takes part: an empty list runs no trial" in out


def test_q14_a_stage_whose_null_groups_leaves_only_baselines_is_refused(tmp_path: Path) -> None:
    data = fixed_plan_data()
    data["groups"] = [g for g in data["groups"] if g["role"] == "baseline"]
    for stage in data["stages"]:
        stage["groups"] = None
    path = _write(tmp_path, json.dumps(data, ensure_ascii=False))
    out = _clean_2(runner.invoke(app, ["validate", str(path)]))
    assert "$.stages[0].groups: no group takes part: null means every group that is not a baseline" in out


def test_q14_a_selection_leaving_a_stage_or_group_without_trials_is_refused() -> None:
    out = _clean_2(runner.invoke(app, ["run", str(FIXED_PLAN), "--stage", "simple", "--group", "prefix",
                                       "--dry-run"]))
    assert "--stage simple: none of the selected groups takes part in it" in out
    assert "--group prefix: takes part in none of the selected stages" in out
    out = _clean_2(runner.invoke(app, ["run", str(FIXED_PLAN), "--stage", "simple", "--group", "A",
                                       "--group", "prefix", "--dry-run"]))
    assert "--group prefix: takes part in none of the selected stages" in out
    ok = runner.invoke(app, ["run", str(FIXED_PLAN), "--stage", "conversation", "--group", "prefix", "--dry-run"])
    assert ok.exit_code == 0, ok.output


# 9. tool arguments are strictly typed; duplicate keys are invalid_arguments ------------------------
def _apply(args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["apply", str(STATE), "--protocol", "unified@1", "--tool", "context_window_list",
                                 "--args", args])
    assert result.exit_code == 0, (result.output, result.exception)
    out: dict[str, Any] = json.loads(result.stdout)["result"]
    return out


@pytest.mark.parametrize("args, field", [
    ('{"purpose": "p", "limit": "5"}', "limit"),
    ('{"purpose": "p", "limit": true}', "limit"),
    ('{"purpose": "p", "limit": 5.0}', "limit"),
    ('{"purpose": "p", "offset": false}', "offset"),
    ('{"purpose": 7}', "purpose"),
])
def test_q14_apply_refuses_coerced_types(args: str, field: str) -> None:
    result = _apply(args)
    assert result["success"] is False and result["error"]["code"] == "invalid_arguments", result
    assert field in result["error"]["message"]


def test_q14_apply_refuses_duplicate_argument_keys() -> None:
    result = _apply('{"purpose": "p", "limit": 50, "limit": 1}')
    assert result["error"]["code"] == "invalid_arguments"
    assert "duplicate key 'limit'" in result["error"]["message"]
    assert _apply('{"purpose": "p", "limit": 5}')["success"] is True


@pytest.mark.parametrize("fragment, reason", HOSTILE)
def test_q14_hostile_tool_arguments_are_invalid_arguments(fragment: str, reason: str) -> None:
    """The model's arguments of that shape crashed ``_parse_arguments``; now a structured result."""
    result = _apply('{"purpose": "p", "limit": ' + fragment + "}")
    assert result["success"] is False and result["error"]["code"] == "invalid_arguments"
    assert reason in result["error"]["message"]


# the same shapes from a model, outside the context tools ------------------------------------------
@pytest.mark.parametrize("fragment, reason", HOSTILE)
def test_q14_hostile_business_tool_arguments_are_invalid_arguments(fragment: str, reason: str) -> None:
    from harness.business_tools import BusinessTools

    result = BusinessTools({}).call("quote_calculate", '{"unitPrice": 1, "installFeePerUnit": 0, "quantity": '
                                    + fragment + "}")
    assert result["success"] is False and result["error"]["code"] == "invalid_arguments", result
    assert reason in result["error"]["message"]


def test_q14_an_answer_of_deep_brackets_is_no_tool_call_and_no_crash() -> None:
    from harness.judging._repeats import canonical_arguments
    from harness.models import looks_like_unparsed_tool_call

    assert looks_like_unparsed_tool_call("see " + DEEP) is False
    assert looks_like_unparsed_tool_call(DEEP + ' {"name": "quote_calculate", "arguments": {}}') is True
    assert canonical_arguments(DEEP) == DEEP  # the repeat marks compare unparsable arguments as written
