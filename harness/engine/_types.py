"""Run-level values (E-2): what one ``run_send_input`` returns."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.models import Usage

RunStatus = Literal["completed", "step_limit", "error", "budget_exhausted", "capacity_exceeded"]
ErrorClass = Literal["infrastructure", "provider_rejected", "context_window", "unsupported_input", "model"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCallRecord(_Frozen):
    """One tool call of a run and its outcome (E-2, X-50)."""

    step: int
    call_id: str
    name: str
    arguments: str
    success: bool
    error_code: str | None = None
    result: dict[str, Any]
    executed: bool = True
    """False for the extra calls of a step answered with ``tool_call_limit_exceeded`` (E-5)."""
    window_id: str
    replayed: bool = False


class CallRecord(_Frozen):
    """One model call (agent or maintainer) with its accounting; the snapshot holds the rest."""

    seq: int
    role: Literal["agent", "maintainer"]
    model: str
    snapshot_id: str | None
    usage: Usage
    usd: float | None
    price_known: bool
    latency_ms: float
    retries: int
    status: Literal["ok", "infrastructure", "provider_rejected", "context_window", "unsupported_input"]
    request_sha256: str
    segments: dict[str, int] = Field(default_factory=dict)


MaintenanceTrigger = Literal["threshold", "explicit", "agent"]


class MaintenanceRecord(_Frozen):
    step: int
    window_id: str
    status: str
    reason: str | None = None
    covered_through: int | None = None
    compressed_folds: tuple[str, ...] = ()
    trigger: MaintenanceTrigger = "threshold"
    """What started it (P-50): the real input tokens reaching the threshold, the host explicitly
    (``Engine.maintain``), or the agent's ``context_compress`` call (``call_id``)."""
    call_id: str | None = None


class RunResult(_Frozen):
    """E-2: session id, run id, final answer, status, steps, tool calls, usage, cost, snapshots."""

    session_id: str
    run_id: str
    input: str
    final_answer: str | None
    status: RunStatus
    error_class: ErrorClass | None = None
    error: str | None = None
    steps: int
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    maintenance: list[MaintenanceRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    usd: float | None = 0.0
    snapshot_ids: list[str] = Field(default_factory=list)


class RunLimits(_Frozen):
    """Per-run and per-call limits (X-20, X-32)."""

    max_steps: int = Field(12, ge=1)
    max_consecutive_tool_errors: int = Field(6, ge=1)
    max_output_tokens: int | None = Field(1024, ge=1)
    timeout_seconds: float = Field(120.0, gt=0)
    temperature: float | None = 0.0
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = None
    """Sampling of every agent call (null: not sent, the provider's default). A run may be given its
    own limits (``Engine.run_send_input(..., limits=)``): the runner gives each repeat its own seed."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Other provider parameters of every agent call (``ModelRequest.extra``, e.g. ``reasoning_effort``);
    the maintainer's calls do not take them."""
    maintainer_temperature: float | None = 0.0
    """The maintainer's sampling temperature (null: not sent, where its model does not take 0)."""
    thinking_budget: int | None = Field(None, ge=1)
    """The part of ``max_output_tokens`` the agent's thinking budget takes (Anthropic refuses a cap at or
    below it); the maintainer, which does not think, is sent ``max_output_tokens`` less it."""

    @property
    def maintainer_max_output_tokens(self) -> int | None:
        if self.max_output_tokens is None or self.thinking_budget is None:
            return self.max_output_tokens
        return max(1, self.max_output_tokens - self.thinking_budget)
