"""The fixed plan is exactly the scenario table of 03-experiments.md (X-2, X-3, X-4, O-26)."""

from __future__ import annotations

import json
from pathlib import Path

from plan_data import FIXED_PLAN

from harness.plan import AnswerContains, AnswerNotContains, load_plan, plan_json_schema_text

SCHEMA = FIXED_PLAN.parents[1] / "plan.schema.json"


def test_x1_committed_schema_matches_models() -> None:
    """plans/plan.schema.json is the pydantic export (regenerate with `harness schema`)."""
    assert SCHEMA.read_text(encoding="utf-8") == plan_json_schema_text()
    assert json.loads(FIXED_PLAN.read_text(encoding="utf-8"))["$schema"] == "../plan.schema.json"


def test_x1_fixed_plan_valid_against_json_schema_too() -> None:
    """Editors validate with the JSON Schema: the fixed plan must pass it (checked structurally here)."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    data = json.loads(FIXED_PLAN.read_text(encoding="utf-8"))
    assert set(data) <= set(schema["properties"])
    assert schema["additionalProperties"] is False


def test_fixed_plan_groups() -> None:
    plan, _ = load_plan(FIXED_PLAN)
    groups = {g.id: (g.role, g.protocol.key, g.protocol.options.get("stateMessagePlacement")) for g in plan.groups}
    assert groups == {
        "A": ("control", "unified@3", "trailing_assistant"),
        "B": ("treatment", "unified@3", "before_history_assistant"),
        "C": ("treatment", "unified@3", "trailing_user"),
        "v2": ("sentinel", "unified@2", None),
        "v1": ("sentinel", "unified@1", None),
        "prefix": ("baseline", "prefix@2", None),
    }
    f = plan.findings
    assert (f.controlGroup, f.placementControl, f.positionGroup, f.roleGroup, f.sentinelGroup, f.baselineGroup) == \
        ("v1", "A", "B", "C", "v2", "prefix")
    assert f.anomalyStages == ["simple", "tool_continuation"]


def test_x10_fixed_plan_stages_and_gating() -> None:
    plan, _ = load_plan(FIXED_PLAN)
    assert [(s.id, s.repeats, s.requires, s.failFast) for s in plan.stages] == [
        ("simple", 3, [], True),
        ("tool_continuation", 2, ["simple"], True),
        ("conversation", 2, ["tool_continuation"], True),
    ]
    conv = plan.stage("conversation")
    assert [g.id for g in plan.participants(plan.stage("simple"))] == ["A", "B", "C", "v2", "v1"]
    assert [g.id for g in plan.participants(conv)] == ["A", "B", "C", "v2", "v1", "prefix"]
    assert plan.required_stages("prefix", conv) == []  # the baseline enters the conversation only
    assert plan.required_stages("A", conv) == ["tool_continuation"]


def test_fixed_plan_checks_pass_on_correct_answers_and_fail_on_wrong_ones() -> None:
    """The scenario's answer checks accept a careful model's answers and refuse the v2 symptom."""
    plan, _ = load_plan(FIXED_PLAN)

    def answer_checks(stage: str, turn: int) -> list[AnswerContains | AnswerNotContains]:
        checks = plan.stage(stage).turns[turn].checks
        return [c for c in checks if isinstance(c, AnswerContains | AnswerNotContains)]

    def passes(stage: str, turn: int, answer: str) -> bool:
        return all(c.evaluate(answer)[0] for c in answer_checks(stage, turn))

    assert passes("simple", 0, "还剩 7,650 元。")
    assert not passes("simple", 0, "好的，我已记录预算信息，请问还需要什么？")  # the off-topic v2 answer
    assert passes("tool_continuation", 0, "P-17 预算 9000 元，已支出 6900 元，剩余 2100 元。")
    assert passes("conversation", 0, "报价：设备 6000 元 + 安装 900 元，总价 6,900 元。")
    assert passes("conversation", 1, "安装排期：2026-10-16（周五）至 10月19日（周一）。")
    assert not passes("conversation", 1, "安装排期：2026-10-16 至 2026-10-17。")
    assert passes("conversation", 2, "已核对：报价 6900 元，在预算 9000 元内，未覆写报价。")
    assert passes("conversation", 2, "核对是否超出预算：报价 6,900 元在调整后的 9000 元预算以内，没有超支。")
    assert passes("conversation", 2, "The quote of 6900 is within the new budget.")
    assert not passes("conversation", 2, "报价 6900 元，不在预算内。")
    assert not passes("conversation", 2, "报价 6900 元是否在预算内？超出预算了。")
    assert not passes("conversation", 2, "预算 9000 元已记录。")


def test_fixed_plan_trial_checks_and_limits() -> None:
    plan, _ = load_plan(FIXED_PLAN)
    conv = plan.stage("conversation")
    assert [c.name for c in conv.trialChecks] == [
        "same_session", "memory_preserved", "state_in_every_request", "window_mismatch_recovered",
        "fold_readback", "compression_readback",
    ]
    memory = conv.trialChecks[1]
    assert memory.model_dump() == {"name": "memory_preserved", "afterTurn": 1, "contains": ["6900"],
                                   "forbidden": ["2026-10-16", "10-19"], "required": True}
    # issue 11: read-backs are required (the source's re-test); a mismatch cannot be demanded of a model
    required = {c.name: getattr(c, "required", None) for c in conv.trialChecks}
    assert required == {"same_session": None, "memory_preserved": True, "state_in_every_request": True,
                        "window_mismatch_recovered": False, "fold_readback": True, "compression_readback": True}
    # room for a local model's first call, which reads the whole prompt on the CPU (79 s measured on 2 cores)
    b = plan.budget
    assert (b.maxUsd, b.maxTotalTokens, b.maxLlmCalls, b.maxStepsPerRun, b.maxOutputTokensPerCall,
            b.timeoutSecondsPerCall, b.maxWallSeconds) == (5, 600000, 400, 12, 1024, 300, 3600)
    s = plan.stop
    assert (s.maxInfraErrorRate, s.minCallsForInfraRate, s.maxConsecutiveToolErrors, s.infraRetries) == (0.3, 10, 6, 1)
    assert plan.models.agent == "scripted/oracle" and plan.models.maintainer_model == "scripted/oracle"  # O-26
    assert plan.agent.projects["P-17"].budget == 9000 and plan.agent.projects["P-17"].spent == 6900


def test_x11_same_session_always_on_for_multi_turn_stages() -> None:
    plan, _ = load_plan(FIXED_PLAN)
    conv = plan.stage("conversation").model_copy(update={"trialChecks": []})
    assert [c.name for c in conv.effective_trial_checks] == ["same_session"]
    assert plan.stage("simple").effective_trial_checks == []


def test_plan_path_helper_points_at_repo() -> None:
    assert Path(FIXED_PLAN).is_file()
