"""A failed trial's failure mode, from what the run directory records.

``diagnose(record, snapshots)`` reads only the trial record (trials.jsonl) and the trial's
snapshots (its transcript, or the store): a rescore of a finished run gives the same mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.analysis import CallEvidence, Diagnosis, TrialEvidence, TurnEvidence, classify_failure, pass_shape
from harness.results._records import TrialRecord

DERIVED = ("context_state", "context_header", "context_fold")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _last_agent_snapshot(snapshots: Sequence[dict[str, Any]], run_id: str) -> dict[str, Any] | None:
    mine = [s for s in snapshots if s.get("runId") == run_id and s.get("role") == "agent" and s.get("request")]
    return max(mine, key=lambda s: int(s.get("seq") or 0)) if mine else None


def _request_parts(snap: dict[str, Any] | None) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(derived messages as (type, text), tools as (name, description)) of the request."""
    if snap is None:
        return (), ()
    request = snap.get("request") or {}
    messages = request.get("messages") or []
    sources = snap.get("sources") or []
    derived = tuple((str(src.get("type")), _text(msg.get("content")))
                    for msg, src in zip(messages, sources, strict=False)
                    if isinstance(src, dict) and src.get("type") in DERIVED)
    tools = []
    for tool in request.get("tools") or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(fn, dict) and fn.get("name"):
            tools.append((str(fn["name"]), str(fn.get("description") or "")))
    return derived, tuple(tools)


def _trailing_assistant(snap: dict[str, Any] | None) -> tuple[str, str] | None:
    """(source type, text) of the request's last message when the assistant role carries it."""
    messages = ((snap or {}).get("request") or {}).get("messages") or []
    if not messages or not isinstance(messages[-1], dict) or messages[-1].get("role") != "assistant":
        return None
    sources = (snap or {}).get("sources") or []
    source = sources[len(messages) - 1] if len(sources) == len(messages) else {}
    return str((source or {}).get("type") or "assistant message"), _text(messages[-1].get("content"))


def trial_evidence(record: TrialRecord, snapshots: Sequence[dict[str, Any]]) -> TrialEvidence:
    turns = []
    for n, run in enumerate(record.runs, 1):
        snap = _last_agent_snapshot(snapshots, run.run_id)
        derived, tools = _request_parts(snap)
        finish = ((snap or {}).get("response") or {}).get("finishReason")
        tokens = ((snap or {}).get("usage") or {}).get("output_tokens")
        failed = tuple((c.name, c.detail) for c in record.checks if c.turn == n and c.result == "failed")
        calls = tuple(CallEvidence(c.name, c.success, c.error_code) for c in run.tool_calls if c.executed)
        turns.append(TurnEvidence(turn=n, answer=run.final_answer, status=run.status, error_class=run.error_class,
                                  error=run.error, finish_reason=str(finish) if finish else None,
                                  failed_checks=failed, calls=calls, derived=derived, tools=tools,
                                  prefill=_trailing_assistant(snap),
                                  output_tokens=tokens if isinstance(tokens, int) else None))
    trial_checks = [c for c in record.checks if c.turn is None]
    return TrialEvidence(
        turns=tuple(turns),
        failed_trial_checks=tuple((c.name, c.detail) for c in trial_checks if c.result == "failed"),
        not_exercised=tuple((c.name, c.detail) for c in trial_checks if c.result == "not_exercised" and c.required))


def diagnose(record: TrialRecord, snapshots: Sequence[dict[str, Any]]) -> Diagnosis:
    """The failure mode of a failed trial (harness.analysis.classify_failure)."""
    return classify_failure(trial_evidence(record, snapshots))


def shape_of_pass(record: TrialRecord, snapshots: Sequence[dict[str, Any]]) -> Diagnosis | None:
    """For a passed trial: an answer with a failure's shape that its answer checks let through
    (harness.analysis.pass_shape), e.g. a text tool call whose arguments hold the expected number."""
    return pass_shape(trial_evidence(record, snapshots))
