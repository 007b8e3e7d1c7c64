"""The fixed scenario's business tools: deterministic results and structured errors (X-60 scenario, E-6)."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.business_tools import BusinessTools, schedule

TOOLS = BusinessTools({"P-17": {"budget": 9000, "spent": 6900}, "P-2": {"budget": 100.5, "spent": 0.25}})


def call(name: str, args: object) -> dict:
    return TOOLS.call(name, args if isinstance(args, str) else json.dumps(args))


def test_quote_math_of_the_scenario_t1() -> None:
    assert call("quote_calculate", {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300}) == {
        "success": True, "equipment": 6000, "installation": 900, "total": 6900}


def test_quote_keeps_cents_exact() -> None:
    result = call("quote_calculate", {"unitPrice": 0.1, "quantity": 3, "installFeePerUnit": 0.2})
    assert result["total"] == 0.9 and result["equipment"] == 0.3


def test_schedule_friday_plus_two_workdays_ends_monday() -> None:
    """2026-10-16 is a Friday: two workdays are Friday and Monday 2026-10-19."""
    assert date(2026, 10, 16).weekday() == 4
    assert call("schedule_plan", {"startDate": "2026-10-16", "workdays": 2}) == {
        "success": True, "startDate": "2026-10-16", "endDate": "2026-10-19", "workdays": 2}


def test_schedule_weekend_start_moves_to_monday() -> None:
    result = call("schedule_plan", {"startDate": "2026-10-17", "workdays": 1})  # Saturday
    assert (result["startDate"], result["endDate"]) == ("2026-10-19", "2026-10-19")
    result = call("schedule_plan", {"startDate": "2026-10-18", "workdays": 5})  # Sunday
    assert (result["startDate"], result["endDate"]) == ("2026-10-19", "2026-10-23")


def test_schedule_five_workdays_from_wednesday_spans_a_weekend() -> None:
    result = call("schedule_plan", {"startDate": "2026-10-14", "workdays": 5})
    assert (result["startDate"], result["endDate"]) == ("2026-10-14", "2026-10-20")


@settings(max_examples=60, deadline=None)
@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)), st.integers(1, 40))
def test_schedule_covers_exactly_n_workdays(start: date, workdays: int) -> None:
    first, last = schedule(start, workdays)
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    assert sum(d.weekday() < 5 for d in days) == workdays
    assert first.weekday() < 5 and last.weekday() < 5 and first >= start


def test_budget_lookup_of_p17_from_plan_data() -> None:
    assert call("budget_lookup", {"projectId": "P-17"}) == {
        "success": True, "projectId": "P-17", "budget": 9000, "spent": 6900, "remaining": 2100}
    assert call("budget_lookup", {"projectId": "P-2"})["remaining"] == 100.25


def test_budget_lookup_unknown_project_is_project_not_found() -> None:
    result = call("budget_lookup", {"projectId": "P-99"})
    assert result["success"] is False
    assert result["error"]["code"] == "project_not_found" and result["error"]["projectId"] == "P-99"


@pytest.mark.parametrize("arguments", ['{"projectId": "P-17"', "", "not json", "[1, 2]", "null"])
def test_arguments_that_are_not_a_json_object_are_invalid_arguments(arguments: str) -> None:
    result = call("budget_lookup", arguments)
    assert result["success"] is False and result["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("quote_calculate", {"unitPrice": 2000, "quantity": 0, "installFeePerUnit": 300}, "quantity"),
    ("quote_calculate", {"unitPrice": 2000, "quantity": 3}, "installFeePerUnit"),
    ("schedule_plan", {"startDate": "2026-02-30", "workdays": 2}, "startDate"),
    ("schedule_plan", {"startDate": "16.10.2026", "workdays": 2}, "startDate"),
    ("schedule_plan", {"startDate": "2026-10-16", "workdays": 2, "extra": 1}, "extra"),
    ("budget_lookup", {"projectId": ""}, "projectId"),
])
def test_schema_failures_name_the_field(tool: str, args: dict, field: str) -> None:
    result = call(tool, args)
    assert result["success"] is False and result["error"]["code"] == "invalid_arguments"
    assert field in result["error"]["fields"] and field in result["error"]["message"]


def test_unknown_tool_is_a_structured_error() -> None:
    result = call("quote_magic", {})
    assert result["error"]["code"] == "unknown_tool"
    assert result["error"]["knownTools"] == ["quote_calculate", "schedule_plan", "budget_lookup"]


def test_schemas_are_openai_tools_with_required_arguments() -> None:
    by_name = {s["function"]["name"]: s for s in TOOLS.schemas()}
    assert set(by_name) == {"quote_calculate", "schedule_plan", "budget_lookup"}
    assert all(s["type"] == "function" for s in by_name.values())
    params = by_name["quote_calculate"]["function"]["parameters"]
    assert set(params["required"]) == {"unitPrice", "quantity", "installFeePerUnit"}
    assert by_name["budget_lookup"]["function"]["parameters"]["additionalProperties"] is False


def test_bad_plan_data_raises_at_construction() -> None:
    """Plan data is not a model mistake: a malformed projects mapping is refused loudly."""
    with pytest.raises(ValueError):
        BusinessTools({"P-1": {"budget": "lots"}})
