"""The rows of metrics.duckdb (O-10) from trial records and the report. A run's trials give thousands of rows
(Q-3: ~14,000 for 1,800 calls), built column by column (``trial_columns``) and checked a column at a time against
their row models by the writer (``MetricsWriter.write_columns``, O-12); the few rows of the report's comparisons are
``harness.metrics`` row models (``comparison_rows``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harness.engine import SEGMENTS
from harness.metrics import ComparisonRow

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
        p_value=c.pValue, samples_p_value=c.samplesP, test=c.test, alpha=alpha, separable=c.separable,
        adjusted_p=c.adjustedP, family=c.family)
        for c in report.comparisons]
    for result in report.sequential or []:
        d = result.design
        out += [ComparisonRow(experiment_id=report.experimentId, stage_id=result.stage, group_id=c.group,
                              other_id=c.other, look=look.look, passes=c.passes, n=c.n, other_passes=c.otherPasses,
                              other_n=c.otherN, p_value=c.pValue, test=d.test, alpha=d.alpha, threshold=look.boundary,
                              separable=c.crossed)
                for look in result.looks for c in look.comparisons]
    return out


class _Table:
    """A table's rows as tuples, in the order of ``names``, until ``columns`` turns them into one list per column."""

    __slots__ = ("names", "rows")

    def __init__(self, *names: str) -> None:
        self.names = names
        self.rows: list[tuple[Any, ...]] = []

    def columns(self, experiment_id: str) -> dict[str, list[Any]]:
        values = list(zip(*self.rows, strict=True)) if self.rows else [()] * len(self.names)
        return {"experiment_id": [experiment_id] * len(self.rows),
                **{name: list(column) for name, column in zip(self.names, values, strict=True)}}


def trial_columns(experiment_id: str, records: list[TrialRecord]) -> dict[str, dict[str, list[Any]]]:
    """Table → column → one value per row, for the tables a run's trials fill (trials, runs, llm_calls,
    request_segments, tool_calls, checks), each column of its row model's field (``harness.metrics``)."""
    trials = _Table("trial_id", "group_id", "stage_id", "repeat", "attempt", "status", "session_id", "started_at",
                    "finished_at", "failure_mode", "failure_detail")
    runs = _Table("trial_id", "run_id", "turn", "status", "steps", "final_answer")
    calls = _Table("trial_id", "run_id", "call_seq", "role", "model", "input_tokens", "cached_input_tokens",
                   "output_tokens", "usd", "latency_ms", "retries", "status", "request_sha256", "cached",
                   "temperature", "top_p", "seed", "failed_attempts", "reasoning_tokens", "cache_write_tokens")
    segments = _Table("trial_id", "call_seq", "segment", "tokens")
    tools = _Table("trial_id", "run_id", "step", "tool_name", "args_sha256", "result_sha256", "success", "error_code",
                   "repeated", "duplicate_signature", "call_id")
    checks = _Table("trial_id", "check_name", "result", "detail", "turn", "required")
    for r in records:
        tid = r.id
        trials.rows.append((tid, r.group, r.stage, r.repeat, r.attempt, r.status, r.sessionId, _time(r.startedAt),
                            _time(r.finishedAt), r.failureMode, r.failureDetail))
        runs.rows += [(tid, run.run_id, turn, run.status, run.steps, run.final_answer)
                      for turn, run in enumerate(r.runs, 1)]
        for call in r.calls:
            if not call.sent:  # a request never sent is no call (``_refusals``)
                continue
            calls.rows.append((
                tid, call.runId or None, call.seq, call.role, call.model, call.inputTokens, call.cachedInputTokens,
                call.outputTokens, call.usd, call.latencyMs, call.retries, call.status, call.requestSha256 or None,
                call.cached, call.temperature, call.topP, call.seed, list(call.failedAttempts), call.reasoningTokens,
                call.cacheWriteTokens))
            segments.rows += [(tid, call.seq, segment, int(call.segments[segment]))
                              for segment in SEGMENTS if segment in call.segments]
        tools.rows += [(tid, tc.runId, tc.step, tc.toolName, tc.argsSha256, tc.resultSha256, tc.success, tc.errorCode,
                        tc.repeated, tc.duplicateSignature, tc.callId) for tc in r.toolCalls]
        checks.rows += [(tid, c.name, c.result, c.detail, c.turn, c.required) for c in r.checks]
    tables = {"trials": trials, "runs": runs, "llm_calls": calls, "request_segments": segments, "tool_calls": tools,
              "checks": checks}
    return {name: table.columns(experiment_id) for name, table in tables.items()}
