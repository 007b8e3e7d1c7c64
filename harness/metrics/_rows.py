"""Typed rows of metrics.duckdb (O-10): one model per table, field names = column names.

The writer also takes plain dicts; these models are for callers who want their rows checked where
they are built. ``experiment_id`` is on every row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    experiment_id: str


class ExperimentRow(_Row):
    plan_id: str
    plan_sha256: str
    model_agent: str
    model_maintainer: str
    model_kind: Literal["scripted", "real"]
    status: str | None = None
    stop_reason: str | None = None
    created_at: datetime | None = None
    label: str | None = None
    test: Literal["boschloo", "fisher"] | None = None


class TrialRow(_Row):
    group_id: str
    stage_id: str
    repeat: int
    trial_id: str
    status: Literal["passed", "failed", "error", "skipped"]
    session_id: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    attempt: int = 0
    failure_mode: str | None = None
    failure_detail: str | None = None


class RunRow(_Row):
    trial_id: str
    run_id: str
    turn: int
    status: str
    steps: int
    final_answer: str | None = None


class LlmCallRow(_Row):
    trial_id: str
    run_id: str | None
    call_seq: int
    role: Literal["agent", "maintainer"]
    model: str
    input_tokens: int
    cached_input_tokens: int = 0
    output_tokens: int
    usd: float | None
    latency_ms: float | None = None
    retries: int = 0
    status: str = "ok"
    request_sha256: str | None = None
    cached: bool = False
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    failed_attempts: list[str] = Field(default_factory=list)
    reasoning_tokens: int = 0
    cache_write_tokens: int = 0


class RequestSegmentRow(_Row):
    trial_id: str
    call_seq: int
    segment: Literal["system", "header", "state", "fold", "history", "tools"]
    tokens: int


class ToolCallRow(_Row):
    trial_id: str
    run_id: str
    step: int
    tool_name: str
    args_sha256: str
    result_sha256: str | None = None
    success: bool
    error_code: str | None = None
    repeated: bool = False
    duplicate_signature: bool = False
    call_id: str | None = None


class CheckRow(_Row):
    trial_id: str
    check_name: str
    result: Literal["passed", "failed", "not_exercised", "not_applicable"]
    detail: str = ""
    turn: int | None = None
    required: bool = True


class ComparisonRow(_Row):
    stage_id: str
    group_id: str
    other_id: str
    look: int | None = None
    passes: int
    n: int
    other_passes: int
    other_n: int
    samples_passes: int | None = None
    samples_n: int | None = None
    other_samples_passes: int | None = None
    other_samples_n: int | None = None
    p_value: float | None
    samples_p_value: float | None = None
    test: Literal["boschloo", "fisher"]
    alpha: float
    threshold: float | None = None
    separable: bool | None
    adjusted_p: float | None = None
    family: str | None = None


ROW_MODELS: dict[str, type[_Row]] = {
    "experiments": ExperimentRow,
    "trials": TrialRow,
    "runs": RunRow,
    "llm_calls": LlmCallRow,
    "request_segments": RequestSegmentRow,
    "tool_calls": ToolCallRow,
    "checks": CheckRow,
    "comparisons": ComparisonRow,
}
