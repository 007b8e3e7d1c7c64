"""The plan's reasoning effort and provider parameters (E-4, O-26): validated, each problem at its JSON path."""

from __future__ import annotations

from typing import Any

import pytest
from plan_data import fixed_plan_data

from harness.plan import PlanError, parse_plan


def _errors(data: Any) -> list[str]:
    with pytest.raises(PlanError) as info:
        parse_plan(data)
    return info.value.errors


def test_a_plan_without_them_sends_nothing_more() -> None:
    plan, _ = parse_plan(fixed_plan_data())
    assert plan.models.reasoningEffort is None and plan.models.params == {}
    assert plan.models.agent_params() == {}


def test_reasoning_effort_and_params_become_the_agents_extra() -> None:
    data = fixed_plan_data()
    data["models"]["reasoningEffort"] = "low"
    data["models"]["params"] = {"thinking": {"type": "enabled", "budget_tokens": 2048}, "top_k": 5}
    plan, _ = parse_plan(data)
    assert plan.models.agent_params() == {"thinking": {"type": "enabled", "budget_tokens": 2048}, "top_k": 5,
                                          "reasoning_effort": "low"}


def test_an_unknown_effort_is_refused_at_its_path() -> None:
    data = fixed_plan_data()
    data["models"]["reasoningEffort"] = "extreme"
    (error,) = _errors(data)
    assert error.startswith("$.models.reasoningEffort: ") and "'minimal'" in error


@pytest.mark.parametrize(("key", "why"), [
    ("api_key", "credential"), ("vertex_credentials", "credential"), ("aws_secret_access_key", "AWS"),
    ("aws_region_name", "AWS"), ("client_secret", "credential"), ("azure_ad_token", "credential"),
    ("extra_headers", "credential"), ("max_tokens", "set by the harness"), ("temperature", "set by the harness"),
    ("tool_choice", "set by the harness"), ("api_base", "set by the harness"), ("num_retries", "set by the harness"),
    ("model", "set by the harness"), ("reasoning_effort", "models.reasoningEffort"),
])
def test_a_credential_or_an_adapter_parameter_is_refused_by_its_path(key: str, why: str) -> None:
    data = fixed_plan_data()
    data["models"]["params"] = {key: "x", "top_k": 3}
    (error,) = _errors(data)
    assert error.startswith(f"$.models.params.{key}: ") and why in error
    assert "'x'" not in error  # a refused value, maybe a key, is never echoed
