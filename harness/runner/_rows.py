"""The rows of metrics.duckdb (O-10) from trial records: one list of dicts per table, every row
carrying ``experiment_id``. Whoever writes the database writes these rows in batches (O-12)."""

from __future__ import annotations

from typing import Any

from harness.engine import SEGMENTS

from ._records import TrialRecord


def table_rows(experiment_id: str, records: list[TrialRecord]) -> dict[str, list[dict[str, Any]]]:
    tables: dict[str, list[dict[str, Any]]] = {
        "trials": [], "runs": [], "llm_calls": [], "request_segments": [], "tool_calls": [], "checks": []}
    for r in records:
        base = {"experiment_id": experiment_id, "trial_id": r.id}
        tables["trials"].append({
            **base, "group_id": r.group, "stage_id": r.stage, "repeat": r.repeat, "attempt": r.attempt,
            "status": r.status, "reason": r.reason, "session_id": r.sessionId, "started_at": r.startedAt,
            "finished_at": r.finishedAt})
        for turn, run in enumerate(r.runs, 1):
            tables["runs"].append({**base, "run_id": run.run_id, "turn": turn, "status": run.status,
                                   "steps": run.steps, "final_answer": run.final_answer})
        for call in r.calls:
            tables["llm_calls"].append({
                **base, "run_id": call.runId, "call_seq": call.seq, "role": call.role, "model": call.model,
                "input_tokens": call.inputTokens, "cached_input_tokens": call.cachedInputTokens,
                "output_tokens": call.outputTokens, "usd": call.usd, "latency_ms": call.latencyMs,
                "retries": call.retries, "status": call.status, "request_sha256": call.requestSha256})
            for segment in SEGMENTS:
                if segment in call.segments:
                    tables["request_segments"].append({**base, "call_seq": call.seq, "segment": segment,
                                                       "tokens": int(call.segments[segment])})
        for tc in r.toolCalls:
            tables["tool_calls"].append({
                **base, "run_id": tc.runId, "step": tc.step, "tool_name": tc.toolName, "args_sha256": tc.argsSha256,
                "result_sha256": tc.resultSha256, "success": tc.success, "error_code": tc.errorCode,
                "repeated": tc.repeated, "duplicate_signature": tc.duplicateSignature})
        for check in r.checks:
            tables["checks"].append({**base, "check_name": check.name, "result": check.result,
                                     "detail": check.detail, "turn": check.turn})
    return tables
