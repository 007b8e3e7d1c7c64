"""``stages[].sequential`` (X-1, X-4, X-13): refused by JSON path when the looks do not ascend or do not end at
the stage's repeats, when the stage is failFast, or when a compared group does not take part; the default
comparisons are the findings rules' pairs among the stage's groups."""

from __future__ import annotations

from typing import Any

import pytest
from plan_data import fixed_plan_data

from harness.plan import PlanError, parse_plan, sequential_pairs


def _plan(**sequential: Any) -> dict[str, Any]:
    data = fixed_plan_data()
    data["stages"][0].update(repeats=20, failFast=False, sequential={"looks": [4, 8, 12, 16, 20], **sequential})
    return data


def _errors(data: dict[str, Any]) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(data)
    return caught.value.errors


def test_a_valid_sequential_stage_defaults_to_the_findings_pairs() -> None:
    plan, _ = parse_plan(_plan())
    stage = plan.stage("simple")
    assert stage.sequential is not None and stage.sequential.spending == "obrien-fleming"
    assert sequential_pairs(plan, stage) == [("B", "A"), ("C", "A"), ("v2", "v1")]
    assert sequential_pairs(plan, plan.stage("tool_continuation")) == []  # not sequential
    named, _ = parse_plan(_plan(spending="pocock", comparisons=[["C", "A"]]))
    assert sequential_pairs(named, named.stage("simple")) == [("C", "A")]


def test_failfast_last_look_and_groups_are_refused_by_json_path() -> None:
    data = _plan(comparisons=[["B", "A"], ["prefix", "A"]])
    data["stages"][0].update(failFast=True, repeats=12)
    errors = _errors(data)
    assert any(e.startswith("$.stages[0].failFast: a sequential stage cannot be failFast") for e in errors)
    assert "$.stages[0].sequential.looks: the last look (20) must equal the stage's repeats (12)" in errors
    assert any(e.startswith("$.stages[0].sequential.comparisons[1][0]: group 'prefix' does not take part in stage "
                            "'simple'") for e in errors)


@pytest.mark.parametrize(("sequential", "where", "says"), [
    ({"looks": [8, 4, 20]}, "$.stages[0].sequential.looks", "looks must ascend strictly"),
    ({"looks": [0, 20]}, "$.stages[0].sequential.looks", "at least 1"),
    ({"looks": [20], "spending": "linear"}, "$.stages[0].sequential.spending", "obrien-fleming"),
    ({"looks": [20], "comparisons": [["A", "A"]]}, "$.stages[0].sequential.comparisons", "two different groups"),
    ({"looks": [20], "comparisons": []}, "$.stages[0].sequential.comparisons", "needs at least one"),
])
def test_malformed_designs_name_their_field(sequential: dict[str, Any], where: str, says: str) -> None:
    data = fixed_plan_data()
    data["stages"][0].update(repeats=20, failFast=False, sequential=sequential)
    errors = _errors(data)
    assert any(e.startswith(where) and says in e for e in errors), errors


def test_no_default_pair_in_the_stage_asks_for_comparisons() -> None:
    data = _plan()
    data["stages"][0]["groups"] = ["A", "v1"]
    assert any(e.startswith("$.stages[0].sequential.comparisons: none of the findings rules' pairs")
               for e in _errors(data))
