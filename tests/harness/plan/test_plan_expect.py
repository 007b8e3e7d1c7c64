"""The plan's ``expect`` list (issue 13): GROUP:STAGE=STATUS triples, each checked at its JSON path."""

from __future__ import annotations

from typing import get_args

import pytest
from plan_data import fixed_plan_data

from harness.analysis import StageStatus as AnalysisStatus
from harness.plan import STAGE_STATUSES, PlanError, parse_plan


def test_every_bad_entry_is_named_at_its_json_path() -> None:
    data = fixed_plan_data()
    data["expect"] = ["A:simple=failed", "Q:simple=passed", "A:simpel=passed", "A:simple=Passed",
                      "prefix:simple=failed", "A:simple=passed", "A-simple", 7]
    with pytest.raises(PlanError) as info:
        parse_plan(data)
    assert info.value.errors == [
        "$.expect[6]: 'A-simple' is not GROUP:STAGE=STATUS, e.g. A:simple=passed",
        "$.expect[7]: Input should be a valid string (got 7)",
    ]  # the structure first; the references once every entry reads
    data["expect"] = data["expect"][:6]
    with pytest.raises(PlanError) as info:
        parse_plan(data)
    assert info.value.errors == [
        "$.expect[1]: unknown group 'Q' (the plan has A, B, C, v2, v1, prefix)",
        "$.expect[2]: unknown stage 'simpel' (the plan has simple, tool_continuation, conversation)",
        "$.expect[3]: unknown status 'Passed' (a stage ends passed, failed, inconclusive, skipped, not_reached)",
        "$.expect[4]: group 'prefix' does not take part in stage 'simple' (its groups: A, B, C, v2, v1)",
        "$.expect[5]: A:simple is already expected to be failed",
    ]


def test_a_valid_list_loads_and_the_statuses_have_one_owner() -> None:
    data = fixed_plan_data()
    data["expect"] = ["A:simple=failed", "prefix:conversation=passed", "v2:tool_continuation=not_reached"]
    plan, _ = parse_plan(data)
    assert plan.expect == data["expect"]
    assert STAGE_STATUSES == get_args(AnalysisStatus)  # analysis re-exports the plan's literal
