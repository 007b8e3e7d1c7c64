"""What a trial leaves behind: its runs, check results, call marks and metrics (X-11, X-50, X-51).

A ``TrialRecord`` is one JSON line of ``trials.jsonl`` in the run directory, written as soon as
the trial ends (X-81); report.json and metrics.duckdb are both derived from these records.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.engine import RunResult

from ._models import CheckResult  # one check result type for records and report.json

TrialStatus = Literal["passed", "failed", "error", "skipped"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallMetric(_Model):
    turn: int
    runId: str
    step: int
    callId: str
    toolName: str
    argsSha256: str
    resultSha256: str
    success: bool
    errorCode: str | None
    repeated: bool
    duplicateSignature: bool


class CallMetric(_Model):
    """One model call of the trial, read from its snapshot (so calls of a run cut short count too)."""

    seq: int
    runId: str
    role: str
    model: str
    inputTokens: int = 0
    cachedInputTokens: int = 0
    outputTokens: int = 0
    reasoningTokens: int = 0
    """Of ``outputTokens``, the model's reasoning (thinking), as the provider reported it."""
    cacheWriteTokens: int = 0
    """Of ``inputTokens``, those written to the provider's prompt cache (Anthropic cache_creation_input_tokens)."""
    usd: float | None = 0.0
    """None when the call used tokens at an unknown price (a local model); 0 for a failed call."""
    latencyMs: float = 0.0
    retries: int = 0
    status: str
    requestSha256: str
    snapshotId: str
    segments: dict[str, int] = Field(default_factory=dict)
    finishReason: str | None = None
    """The provider's finish reason (``stop``, ``tool_calls``, ``length`` when cut at the output cap)."""
    cached: bool = False
    """Served from the response cache (``--cache``): no model was called, usd is 0."""
    failedAttempts: list[str] = Field(default_factory=list)
    """Kind of each failed attempt (``harness.models.infra_kind``), in order; when the call ended in an
    error, the last is the one it gave up on."""
    sent: bool = True
    """False: no request went out: the provider had refused the very same request earlier in the run (a
    deterministic refusal is sent once, ``harness.runner._refusals``); no model call, no attempt."""
    temperature: float | None = None
    topP: float | None = None
    seed: int | None = None
    """The sampling the call was sent with (null: not sent)."""


class TrialMetrics(_Model):
    inputTokens: int = 0
    cachedInputTokens: int = 0
    outputTokens: int = 0
    reasoningTokens: int = 0
    cacheWriteTokens: int = 0
    usd: float | None = 0.0
    """None as soon as one call's price is unknown."""
    llmCalls: int = 0
    toolCalls: int = 0
    repeatedToolCalls: int = 0
    duplicateSignatureCalls: int = 0
    maintenanceRuns: int = 0
    infraErrors: int = 0
    cachedResponses: int = 0


class TrialRecord(_Model):
    id: str
    """``<group>/<stage>/<repeat>``; an infrastructure retry appends ``~<attempt>`` (X-12, X-80)."""
    group: str
    stage: str
    repeat: int
    attempt: int = 0
    status: TrialStatus
    reason: str | None = None
    """Why a trial is an error or was skipped (the run error, the stop reason), or which checks failed."""
    failureMode: str | None = None
    """A failed trial's failure mode (``harness.analysis.FAILURE_MODES``); null for any other status."""
    failureDetail: str | None = None
    """What the classifier saw: the turn and the answer or check behind the mode."""
    passShape: str | None = None
    """A passed trial whose answer has a failure's shape (a text tool call, an echo) that its answer
    checks let through: the mode and what the classifier saw; null otherwise."""
    sessionId: str | None = None
    startedAt: str | None = None
    finishedAt: str | None = None
    runs: list[RunResult] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    toolCalls: list[ToolCallMetric] = Field(default_factory=list)
    calls: list[CallMetric] = Field(default_factory=list)
    metrics: TrialMetrics = Field(default_factory=TrialMetrics)
    sampling: dict[str, Any] | None = None
    """What the trial's agent calls asked for: temperature, topP, seed (repeat r: the plan's seed + r - 1)."""
    memories: list[dict[str, str]] | None = None
    """Per finished turn, ``window/<id>`` → its workingMemory right after the turn (what
    ``memory_preserved`` reads; kept so ``harness rescore`` can re-evaluate it). None: not recorded."""

    @property
    def finished(self) -> bool:
        """Passed and failed trials are final; errors and skips are re-run on resume (X-81)."""
        return self.status in ("passed", "failed")


def trial_id(group: str, stage: str, repeat: int, attempt: int = 0) -> str:
    base = f"{group}/{stage}/{repeat}"
    return base if attempt == 0 else f"{base}~{attempt}"


def transcript_name(record: TrialRecord) -> str:
    """``transcripts/<group>/<stage>/<repeat>[~<attempt>].jsonl``, relative to the run directory."""
    name = f"{record.repeat}" if record.attempt == 0 else f"{record.repeat}~{record.attempt}"
    return f"transcripts/{record.group}/{record.stage}/{name}.jsonl"
