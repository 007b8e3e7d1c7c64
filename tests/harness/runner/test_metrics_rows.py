"""metrics.duckdb's trial tables (O-10) as a run writes them, column by column (``trial_columns``,
``MetricsWriter.write_columns``), hold the rows built one row model at a time from the same trial records."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from harness.engine import SEGMENTS
from harness.metrics import (
    CheckRow,
    LlmCallRow,
    MetricsWriter,
    RequestSegmentRow,
    RunRow,
    ToolCallRow,
    TrialRow,
)
from harness.results._records import CallMetric, TrialRecord
from harness.results._rows import trial_columns
from harness.runner._persist import RunDir

TRIAL_TABLES = ("trials", "runs", "llm_calls", "request_segments", "tool_calls", "checks")


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def reference_rows(eid: str, records: list[TrialRecord]) -> dict[str, list[Any]]:
    """Each row as its row model, one at a time (how metrics.duckdb was written before it was written by columns)."""
    out: dict[str, list[Any]] = {t: [] for t in TRIAL_TABLES}
    for r in records:
        base = {"experiment_id": eid, "trial_id": r.id}
        out["trials"].append(TrialRow(**base, group_id=r.group, stage_id=r.stage, repeat=r.repeat, attempt=r.attempt,
                                      status=r.status, session_id=r.sessionId, started_at=_time(r.startedAt),
                                      finished_at=_time(r.finishedAt), failure_mode=r.failureMode,
                                      failure_detail=r.failureDetail))
        out["runs"] += [RunRow(**base, run_id=run.run_id, turn=n, status=run.status, steps=run.steps,
                               final_answer=run.final_answer) for n, run in enumerate(r.runs, 1)]
        for c in r.calls:
            if c.sent:
                out["llm_calls"].append(LlmCallRow(
                    **base, run_id=c.runId or None, call_seq=c.seq, role=c.role, model=c.model,
                    input_tokens=c.inputTokens, cached_input_tokens=c.cachedInputTokens, output_tokens=c.outputTokens,
                    usd=c.usd, latency_ms=c.latencyMs, retries=c.retries, status=c.status,
                    request_sha256=c.requestSha256 or None, cached=c.cached, temperature=c.temperature, top_p=c.topP,
                    seed=c.seed, failed_attempts=c.failedAttempts, reasoning_tokens=c.reasoningTokens,
                    cache_write_tokens=c.cacheWriteTokens))
                out["request_segments"] += [RequestSegmentRow(**base, call_seq=c.seq, segment=s, tokens=c.segments[s])
                                            for s in SEGMENTS if s in c.segments]
        out["tool_calls"] += [ToolCallRow(
            **base, run_id=t.runId, step=t.step, tool_name=t.toolName, args_sha256=t.argsSha256,
            result_sha256=t.resultSha256, success=t.success, error_code=t.errorCode, repeated=t.repeated,
            duplicate_signature=t.duplicateSignature, call_id=t.callId) for t in r.toolCalls]
        out["checks"] += [CheckRow(**base, check_name=c.name, result=c.result, detail=c.detail, turn=c.turn,
                                   required=c.required) for c in r.checks]
    return out


def _tables(con: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TRIAL_TABLES}


def _odd_calls(record: TrialRecord) -> TrialRecord:
    """The record with calls no fixed-plan run makes: never sent, served from the cache, failed and unpriced."""
    call = record.calls[0]
    extra = [
        call.model_copy(update={"seq": 90, "sent": False, "status": "provider_rejected", "usd": 0.0}),
        call.model_copy(update={"seq": 91, "cached": True, "usd": 0.0, "runId": ""}),
        CallMetric(seq=92, runId="r", role="maintainer", model="m", usd=None, status="server_error",
                   requestSha256="", snapshotId="s", failedAttempts=["timeout", "server_error"], retries=2,
                   segments={"history": 7, "system": 3}, temperature=0.0, seed=4),
    ]
    return record.model_copy(update={"calls": [*record.calls, *extra]})


def test_a_runs_trial_tables_hold_the_row_models_rows(fixed_sweep: tuple[Path, int, str]) -> None:
    statuses: set[str] = set()
    for model in ("scripted-oracle", "scripted-prefill-continuer"):
        run = fixed_sweep[0] / model
        records = RunDir(run).records()
        con = duckdb.connect(str(run / "metrics.duckdb"), read_only=True)
        (eid,) = con.execute("SELECT experiment_id FROM experiments").fetchall()[0]
        written = _tables(con)
        con.close()
        reference = MetricsWriter(duckdb.connect())
        for table, rows in reference_rows(eid, records).items():
            reference.write(table, rows)
        assert written == _tables(reference.con), model
        assert all(written.values()), model
        statuses |= {r.status for r in records}
    assert statuses >= {"passed", "failed"}

    records = RunDir(fixed_sweep[0] / "scripted-oracle").records()
    odd = [_odd_calls(records[0]), TrialRecord(id="A/x/1", group="A", stage="x", repeat=1, status="skipped"),
           *records[1:3]]
    by_columns, reference = MetricsWriter(duckdb.connect()), MetricsWriter(duckdb.connect())
    for table, columns in trial_columns("e", odd).items():
        by_columns.write_columns(table, columns)
    for table, rows in reference_rows("e", odd).items():
        reference.write(table, rows)
    assert _tables(by_columns.con) == _tables(reference.con)
    calls = by_columns.con.execute("SELECT call_seq, cached, usd, failed_attempts FROM llm_calls WHERE trial_id = ? "
                                   "AND call_seq >= 90 ORDER BY call_seq", [records[0].id]).fetchall()
    assert calls == [(91, True, 0.0, []), (92, False, None, ["timeout", "server_error"])]  # 90 was never sent
