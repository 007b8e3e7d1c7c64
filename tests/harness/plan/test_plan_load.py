"""Plan loading and validation: every error by JSON path, one PlanError (X-1 … X-5, P-61, P-62)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plan_data import FIXED_PLAN, fixed_plan_data

from harness.plan import PlanError, json_path, load_plan, parse_plan, plan_sha256
from protocols import InvalidInput


def _errors(data: Any) -> list[str]:
    with pytest.raises(PlanError) as info:
        parse_plan(data)
    return info.value.errors


def test_x1_plan_error_is_invalid_input_and_lists_every_error() -> None:
    data = fixed_plan_data()
    data["groups"][1]["protocol"]["options"]["stateMessagePlacement"] = "system"
    data["stages"][0]["repeats"] = 0
    data["agent"]["systemPrompt"] = "no placeholder here"
    with pytest.raises(InvalidInput) as info:
        parse_plan(data, "p.json")
    errors = info.value.errors  # type: ignore[attr-defined]
    assert "$.groups[1].protocol.options.stateMessagePlacement" in "\n".join(errors)
    assert any(e.startswith("$.stages[0].repeats: ") for e in errors)
    assert any(e.startswith("$.agent.systemPrompt: ") and "{{context_protocol}}" in e for e in errors)
    assert len(errors) == 3
    assert "p.json" in str(info.value)


def test_x3_options_validated_by_catalog_at_field_path() -> None:
    """P-61: unknown option and out-of-range value, each at its own path."""
    data = fixed_plan_data()
    data["groups"][2]["protocol"]["options"] = {"stateMessagePlacement": "trailing_user", "colour": "red"}
    data["groups"][3]["protocol"]["options"] = {"checkpointMaxCharacters": 50}
    errors = _errors(data)
    assert errors[0] == "$.groups[2].protocol.options.colour: unknown option for unified@3"
    assert errors[1].startswith("$.groups[3].protocol.options.checkpointMaxCharacters: ")
    assert "1000" in errors[1]


def test_x3_placement_is_not_an_option_of_v2() -> None:
    data = fixed_plan_data()
    data["groups"][3]["protocol"]["options"] = {"stateMessagePlacement": "trailing_user"}
    assert _errors(data) == ["$.groups[3].protocol.options.stateMessagePlacement: unknown option for unified@2"]


def test_x3_unknown_protocol() -> None:
    data = fixed_plan_data()
    data["groups"][0]["protocol"]["version"] = 7
    errors = _errors(data)
    assert errors[0].startswith("$.groups[0].protocol: unknown protocol 'unified@7'")


def test_options_reported_even_when_other_parts_are_malformed() -> None:
    data = fixed_plan_data()
    data["budget"]["maxUsd"] = "lots"
    data["groups"][0]["protocol"]["options"]["pageSize"] = 0
    errors = _errors(data)
    assert any(e.startswith("$.budget.maxUsd: ") for e in errors)
    assert any(e.startswith("$.groups[0].protocol.options.pageSize: ") for e in errors)


def test_p62_placeholder_required_spaces_allowed() -> None:
    data = fixed_plan_data()
    data["agent"]["systemPrompt"] = "助理。{{ context_protocol }}"
    parse_plan(data)
    data["agent"]["systemPrompt"] = "助理。{context_protocol}"
    assert _errors(data)[0].startswith("$.agent.systemPrompt: must contain {{context_protocol}}")


@pytest.mark.parametrize("check, message", [
    ({"name": "answer_has", "texts": ["x"]}, "unknown check 'answer_has'"),
    ({"name": "fold_readback"}, "'fold_readback' is a trial check"),
    ({"texts": ["x"]}, "a check needs a name"),
    ({"name": "answer_contains"}, "needs at least one of texts, numbers, dates, regexes"),
    ({"name": "answer_contains", "numbers": [1], "colour": 1}, "unknown key"),
    ({"name": "answer_contains", "dates": ["19/10"]}, "must be YYYY-MM-DD or MM-DD"),
    ({"name": "answer_contains", "regexes": ["(unclosed"]}, "not a valid regular expression"),
    ({"name": "tool_called", "tool": "budget_lookup", "min": 3, "max": 1}, "max (1) is below min (3)"),
])
def test_x4_turn_check_errors_at_check_path(check: dict[str, Any], message: str) -> None:
    data = fixed_plan_data()
    data["stages"][1]["turns"][0]["checks"][0] = check
    errors = _errors(data)
    assert len(errors) == 1, errors
    assert errors[0].startswith("$.stages[1].turns[0].checks[0]")
    assert message in errors[0]


def test_x4_turn_check_in_trial_checks() -> None:
    data = fixed_plan_data()
    data["stages"][2]["trialChecks"].append({"name": "run_completed"})
    assert _errors(data) == ["$.stages[2].trialChecks[6]: 'run_completed' is a turn check: put it in a turn's checks"]


def test_x4_references_between_parts() -> None:
    data = fixed_plan_data()
    data["stages"][1]["requires"] = ["conversation", "nowhere"]
    data["stages"][0]["groups"].append("Z")
    data["stages"][2]["trialChecks"][1]["afterTurn"] = 4
    data["stages"][2]["turns"][0]["checks"][0]["tool"] = "weather"
    data["findings"]["controlGroup"] = "v9"
    data["findings"]["anomalyStages"] = ["simple", "hard"]
    errors = _errors(data)
    assert errors == [
        "$.stages[0].groups[5]: unknown group 'Z'",
        "$.stages[1].requires[0]: stage 'conversation' does not run before 'tool_continuation' "
        "(stages run in plan order, X-10)",
        "$.stages[1].requires[1]: unknown stage 'nowhere'",
        "$.stages[2].turns[0].checks[0].tool: 'weather' is neither a context tool nor one of agent.businessTools",
        "$.stages[2].trialChecks[1].afterTurn: turn 4 does not exist; the stage has 3 turn(s)",
        "$.findings.controlGroup: unknown group 'v9'",
        "$.findings.anomalyStages[1]: unknown stage 'hard'",
    ]


def test_x3_duplicate_ids() -> None:
    data = fixed_plan_data()
    data["groups"][4]["id"] = "v2"
    data["stages"][2]["id"] = "simple"
    errors = _errors(data)
    assert "$.groups[4].id: duplicate group id 'v2'" in errors
    assert "$.stages[2].id: duplicate stage id 'simple'" in errors


def test_x40_findings_roles_must_match_their_protocols() -> None:
    """The placement-v3 rules assume A/B/C are the three unified@3 placements."""
    data = fixed_plan_data()
    data["findings"]["positionGroup"], data["findings"]["roleGroup"] = "C", "B"
    errors = _errors(data)
    assert errors == [
        "$.findings.positionGroup: group 'C' must use stateMessagePlacement 'before_history_assistant' for this role",
        "$.findings.roleGroup: group 'B' must use stateMessagePlacement 'trailing_user' for this role",
    ]
    data = fixed_plan_data()
    data["findings"]["sentinelGroup"] = "v1"
    assert any("need unified@2 here" in e for e in _errors(data))


def test_api_base_never_carries_credentials() -> None:
    """O-30: a key in the plan would end up in every output."""
    for url in ("https://user:sk-123@api.example.com/v1", "http://127.0.0.1:8000/v1?api_key=sk-1", "ftp://x"):
        data = fixed_plan_data()
        data["models"]["apiBase"] = url
        assert _errors(data)[0].startswith("$.models.apiBase: ")


def test_json_path_quotes_keys_that_are_not_identifiers() -> None:
    assert json_path(("models", "prices", "openai/gpt-4.1", "inputPerMTok")) == \
        '$.models.prices["openai/gpt-4.1"].inputPerMTok'
    assert json_path(("$schema",)) == '$["$schema"]'
    assert json_path(()) == "$"


def test_x5_sha256_is_of_canonical_json(tmp_path: Path) -> None:
    """Whitespace and key order do not change the hash; any value does; $schema is not part of it."""
    plan, sha = load_plan(FIXED_PLAN)
    data = fixed_plan_data()
    reordered = dict(reversed(list(data.items())))
    reordered["$schema"] = "elsewhere/plan.schema.json"
    other = tmp_path / "p.json"
    other.write_text(json.dumps(reordered, indent=7, ensure_ascii=True), encoding="utf-8")
    assert load_plan(other)[1] == sha == plan_sha256(data)
    data["stages"][0]["repeats"] = 4
    assert plan_sha256(data) != sha


@pytest.mark.parametrize("text, message", [
    ("{", "$: invalid JSON at line 1 column 2"),
    ("[1, 2]", "$: a plan is a JSON object, got list"),
    ('{"id": "a", "id": "b"}', "$: invalid JSON: duplicate key 'id'"),
    ('{"budget": {"maxUsd": NaN}}', "$: invalid JSON: NaN is not JSON"),
])
def test_q14_broken_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PlanError) as info:
        load_plan(path)
    assert info.value.errors[0].startswith(message)


def test_q14_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such file"):
        load_plan(tmp_path / "missing.json")
    (tmp_path / "latin1.json").write_bytes(b'{"title": "caf\xe9"}')
    with pytest.raises(PlanError, match="not UTF-8"):
        load_plan(tmp_path / "latin1.json")


def test_unknown_top_level_key_and_missing_fields() -> None:
    errors = _errors({"id": "x", "colour": "red"})
    assert "$.colour: unknown key" in errors
    assert "$.title: required" in errors and "$.agent: required" in errors and "$.groups: required" in errors
