"""A small synthetic experiment whose aggregates are known by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from harness.metrics import CheckRow, ExperimentRow, LlmCallRow, RequestSegmentRow, RunRow, ToolCallRow, TrialRow

T0 = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)


def synthetic_rows(experiment_id: str = "exp-1", label: str | None = None) -> dict[str, list[Any]]:
    """A: simple 3 trials (passed, passed, failed); B: simple 2 passed + 1 error retried as passed;
    prefix: conversation 1 passed. Known totals are asserted in the view tests."""
    e = experiment_id
    trials = [
        TrialRow(experiment_id=e, group_id="A", stage_id="simple", repeat=1, trial_id="A/simple/1", status="passed",
                 started_at=T0),
        TrialRow(experiment_id=e, group_id="A", stage_id="simple", repeat=2, trial_id="A/simple/2", status="passed",
                 started_at=T0),
        TrialRow(experiment_id=e, group_id="A", stage_id="simple", repeat=3, trial_id="A/simple/3", status="failed",
                 started_at=T0),
        TrialRow(experiment_id=e, group_id="B", stage_id="simple", repeat=1, trial_id="B/simple/1", status="passed",
                 started_at=T0),
        TrialRow(experiment_id=e, group_id="B", stage_id="simple", repeat=2, trial_id="B/simple/2", status="error",
                 started_at=T0, attempt=0),
        TrialRow(experiment_id=e, group_id="B", stage_id="simple", repeat=2, trial_id="B/simple/2", status="passed",
                 started_at=T0, attempt=1),
        TrialRow(experiment_id=e, group_id="prefix", stage_id="conversation", repeat=1,
                 trial_id="prefix/conversation/1", status="passed", started_at=T0 + timedelta(minutes=5)),
    ]
    calls = []
    for trial in ("A/simple/1", "A/simple/2", "A/simple/3"):
        for seq in (1, 2):
            calls.append(LlmCallRow(experiment_id=e, trial_id=trial, run_id="r", call_seq=seq, role="agent", model="m",
                                    input_tokens=100, cached_input_tokens=10, output_tokens=20, usd=0.01))
    calls.append(LlmCallRow(experiment_id=e, trial_id="A/simple/3", run_id=None, call_seq=3, role="maintainer",
                            model="m", input_tokens=50, output_tokens=5, usd=0.005))
    for seq in (1, 2, 3):  # B/simple/2: both attempts' calls count
        calls.append(LlmCallRow(experiment_id=e, trial_id="B/simple/2", run_id="r", call_seq=seq, role="agent",
                                model="m", input_tokens=200, output_tokens=10, usd=None if seq == 3 else 0.02))
    calls.append(LlmCallRow(experiment_id=e, trial_id="prefix/conversation/1", run_id="r", call_seq=1, role="agent",
                            model="m", input_tokens=300, output_tokens=30, usd=0.03))
    tools = [
        ToolCallRow(experiment_id=e, trial_id="A/simple/1", run_id="r", step=1, tool_name="budget_lookup",
                    args_sha256="a", result_sha256="x", success=True),
        ToolCallRow(experiment_id=e, trial_id="A/simple/1", run_id="r", step=2, tool_name="budget_lookup",
                    args_sha256="a", result_sha256="x", success=True, repeated=True, duplicate_signature=True),
        ToolCallRow(experiment_id=e, trial_id="A/simple/3", run_id="r", step=1, tool_name="budget_lookup",
                    args_sha256="a", result_sha256="y", success=True, duplicate_signature=True),
    ]
    segments = [
        RequestSegmentRow(experiment_id=e, trial_id="A/simple/1", call_seq=1, segment="system", tokens=60),
        RequestSegmentRow(experiment_id=e, trial_id="A/simple/1", call_seq=1, segment="state", tokens=20),
        RequestSegmentRow(experiment_id=e, trial_id="A/simple/1", call_seq=2, segment="system", tokens=60),
        RequestSegmentRow(experiment_id=e, trial_id="A/simple/2", call_seq=1, segment="history", tokens=60),
        RequestSegmentRow(experiment_id=e, trial_id="prefix/conversation/1", call_seq=1, segment="history",
                          tokens=300),
    ]
    return {
        "experiments": [ExperimentRow(experiment_id=e, plan_id="p", plan_sha256="0" * 64, model_agent="scripted/oracle",
                                      model_maintainer="scripted/oracle", model_kind="scripted", created_at=T0,
                                      label=label)],
        "trials": trials,
        "runs": [RunRow(experiment_id=e, trial_id="A/simple/1", run_id="r", turn=1, status="completed", steps=2,
                        final_answer="还剩 7650 元")],
        "llm_calls": calls,
        "request_segments": segments,
        "tool_calls": tools,
        "checks": [CheckRow(experiment_id=e, trial_id="A/simple/1", check_name="answer_contains", result="passed",
                            detail="found number 7650", turn=1)],
    }
