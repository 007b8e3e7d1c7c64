"""The rows of metrics.duckdb (O-10) from trial records, as ``harness.metrics`` row models (so each
row is checked where it is built); the metrics writer inserts them in batches (O-12)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harness.engine import SEGMENTS
from harness.metrics import (
    CheckRow,
    ComparisonRow,
    ExperimentRow,
    LlmCallRow,
    RequestSegmentRow,
    RunRow,
    ToolCallRow,
    TrialRow,
)

from ._models import Report
from ._records import TrialRecord


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def comparison_rows(report: Report) -> list[ComparisonRow]:
    """Every p-value of the report with its test: each group against the placement control, then each comparison
    at each look of a sequential stage."""
    alpha = report.design.alpha if report.design is not None else 0.05
    out = [ComparisonRow(
        experiment_id=report.experimentId, stage_id=c.stage, group_id=c.group, other_id=c.control,
        passes=c.groupPasses, n=c.groupN, other_passes=c.controlPasses, other_n=c.controlN,
        samples_passes=c.groupSamples[0] if c.groupSamples else None,
        samples_n=c.groupSamples[1] if c.groupSamples else None,
        other_samples_passes=c.controlSamples[0] if c.controlSamples else None,
        other_samples_n=c.controlSamples[1] if c.controlSamples else None,
        p_value=c.pValue, samples_p_value=c.samplesP, test=c.test, alpha=alpha, separable=c.separable)
        for c in report.comparisons]
    for result in report.sequential or []:
        d = result.design
        out += [ComparisonRow(experiment_id=report.experimentId, stage_id=result.stage, group_id=c.group,
                              other_id=c.other, look=look.look, passes=c.passes, n=c.n, other_passes=c.otherPasses,
                              other_n=c.otherN, p_value=c.pValue, test=d.test, alpha=d.alpha, threshold=look.boundary,
                              separable=c.crossed)
                for look in result.looks for c in look.comparisons]
    return out


def table_rows(experiment: ExperimentRow, records: list[TrialRecord],
               report: Report | None = None) -> dict[str, list[Any]]:
    eid = experiment.experiment_id
    tables: dict[str, list[Any]] = {"experiments": [experiment], "trials": [], "runs": [], "llm_calls": [],
                                    "request_segments": [], "tool_calls": [], "checks": [],
                                    "comparisons": [] if report is None else comparison_rows(report)}
    for r in records:
        base = {"experiment_id": eid, "trial_id": r.id}
        tables["trials"].append(TrialRow(
            **base, group_id=r.group, stage_id=r.stage, repeat=r.repeat, attempt=r.attempt, status=r.status,
            session_id=r.sessionId, started_at=_time(r.startedAt), finished_at=_time(r.finishedAt),
            failure_mode=r.failureMode, failure_detail=r.failureDetail))
        for turn, run in enumerate(r.runs, 1):
            tables["runs"].append(RunRow(**base, run_id=run.run_id, turn=turn, status=run.status, steps=run.steps,
                                         final_answer=run.final_answer))
        for call in (c for c in r.calls if c.sent):  # a request never sent is no call (``_refusals``)
            tables["llm_calls"].append(LlmCallRow(
                **base, run_id=call.runId or None, call_seq=call.seq, role=call.role, model=call.model,
                input_tokens=call.inputTokens, cached_input_tokens=call.cachedInputTokens,
                output_tokens=call.outputTokens, usd=call.usd, latency_ms=call.latencyMs, retries=call.retries,
                status=call.status, request_sha256=call.requestSha256 or None, cached=call.cached,
                temperature=call.temperature, top_p=call.topP, seed=call.seed,
                failed_attempts=list(call.failedAttempts), reasoning_tokens=call.reasoningTokens,
                cache_write_tokens=call.cacheWriteTokens))
            tables["request_segments"] += [
                RequestSegmentRow(**base, call_seq=call.seq, segment=segment, tokens=int(call.segments[segment]))
                for segment in SEGMENTS if segment in call.segments]
        tables["tool_calls"] += [ToolCallRow(
            **base, run_id=tc.runId, step=tc.step, tool_name=tc.toolName, args_sha256=tc.argsSha256,
            result_sha256=tc.resultSha256, success=tc.success, error_code=tc.errorCode, repeated=tc.repeated,
            duplicate_signature=tc.duplicateSignature, call_id=tc.callId) for tc in r.toolCalls]
        tables["checks"] += [CheckRow(**base, check_name=c.name, result=c.result, detail=c.detail, turn=c.turn,
                                      required=c.required)
                             for c in r.checks]
    return tables
