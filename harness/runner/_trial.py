"""One trial (X-11): a fresh root session; its turns are consecutive ``run_send_input`` calls on it.

The trial's status: ``error`` when an infrastructure failure ended a run (never a model failure,
X-12, X-31); ``skipped`` when the experiment stopped it (budget, wall clock, interrupt); else
``failed`` when a check failed or a required check was not exercised (its precondition never
occurred: the evidence the stage asks for is missing), ``passed`` otherwise.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from harness.engine import Engine, RunLimits, RunResult
from harness.judging import TrialView, decode_snapshots, judge, mark_calls
from harness.plan import StageSpec
from harness.results._infra import attempt_kinds
from harness.results._records import CallMetric, ToolCallMetric, TrialMetrics, TrialRecord, trial_id

from ._budget import StopRequested
from ._cache import enter_trial

INFRA_CLASSES = frozenset({"infrastructure", "provider_rejected", "context_window", "unsupported_input"})
"""Run errors that are not the model's doing: the trial is an ``error``, never ``failed``.
``unsupported_input``: a scripted model cannot read the plan's wording (a set-up error)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def run_trial(engine: Engine, group: str, stage: StageSpec, repeat: int, attempt: int = 0,
                    snapshot_utf8: list[bytes] | None = None) -> TrialRecord:
    """Run one trial; ``snapshot_utf8``, when given, receives the JSON text of the session's snapshots as
    stored, in UTF-8 (read once: decoded for the judges, ``decode_snapshots``, and written as they are into the
    transcript)."""
    tid = trial_id(group, stage.id, repeat, attempt)
    enter_trial(repeat)  # the response cache keys a call by its repeat index
    session_id = f"{tid}#{uuid.uuid4().hex[:8]}"  # fresh on every (re)run, so a resume never reuses one
    engine.create_session(session_id)
    limits = repeat_limits(engine.limits, repeat)
    started = now()
    runs: list[RunResult] = []
    memories: list[dict[str, str]] = []
    stopped: str | None = None
    for turn in stage.turns:
        try:
            result = await engine.run_send_input(session_id, turn.input, limits)
        except StopRequested as exc:
            stopped = exc.reason
            break
        runs.append(result)
        memories.append(_memories(engine, session_id))
        if result.status == "budget_exhausted" or (result.status == "error" and result.error_class in INFRA_CLASSES):
            break
    texts = [text for _, text in engine.store.snapshot_utf8(session_id)]
    written = decode_snapshots(texts)  # json.loads of each, the run's tool schemas not decoded again
    if snapshot_utf8 is not None:
        snapshot_utf8.extend(texts)
    view = TrialView(protocol=engine.protocol, store=engine.store, session_id=session_id, runs=runs,
                     snapshots=written, memories=memories)
    record = TrialRecord(id=tid, group=group, stage=stage.id, repeat=repeat, attempt=attempt, status="passed",
                         sessionId=session_id, startedAt=started, runs=runs, memories=memories,
                         sampling=sampling_of(limits))
    _fill_metrics(record, view)
    record.status, record.reason = _status(stage, runs, stopped)
    if record.status in ("passed", "failed"):
        judge(record, stage, view)
    record.finishedAt = now()
    return record


def repeat_limits(limits: RunLimits, repeat: int) -> RunLimits:
    """The limits of repeat ``repeat`` (1-based): the plan's seed s becomes s + repeat - 1, so repeats
    are distinct draws for a provider that honours seeds, and a rerun asks for the same ones."""
    if limits.seed is None:
        return limits
    return limits.model_copy(update={"seed": limits.seed + repeat - 1})


def sampling_of(limits: RunLimits) -> dict[str, Any]:
    """The sampling a trial's agent calls ask for, in the plan's names (null: not sent)."""
    return {"temperature": limits.temperature, "topP": limits.top_p, "seed": limits.seed}


def _status(stage: StageSpec, runs: list[RunResult], stopped: str | None) -> tuple[Any, str | None]:
    last = runs[-1] if runs else None
    if last is not None and last.status == "error" and last.error_class in INFRA_CLASSES:
        return "error", f"{last.error_class}: {last.error}"
    if stopped is not None:
        return "skipped", f"stopped: {stopped}"
    if last is not None and last.status == "budget_exhausted":
        return "skipped", f"budget_exhausted: {last.error}"
    if len(runs) < len(stage.turns):  # pragma: no cover - every break above sets a status
        return "error", "the trial ended early"
    return "passed", None


def _memories(engine: Engine, session_id: str) -> dict[str, str]:
    if not engine.protocol.has_windows:
        return {}
    windows = engine.store.kv_prefix(session_id, "window/")
    return {key: str(value.get("workingMemory") or "") for key, value in windows.items() if isinstance(value, dict)}


def _fill_metrics(record: TrialRecord, view: TrialView) -> None:
    marks = mark_calls([run.tool_calls for run in view.runs])
    run_of_turn = {n: run.run_id for n, run in enumerate(view.runs, 1)}
    record.toolCalls = [ToolCallMetric(
        turn=m.turn, runId=run_of_turn[m.turn], step=m.step, callId=m.call_id, toolName=m.name,
        argsSha256=m.args_sha256,
        resultSha256=m.result_sha256, success=m.success, errorCode=m.error_code, repeated=m.repeated,
        duplicateSignature=m.duplicate_signature) for m in marks]
    record.calls = [call_metric(s) for s in view.snapshots if s.get("request")]
    metrics = TrialMetrics()
    for call in record.calls:
        metrics.inputTokens += call.inputTokens
        metrics.cachedInputTokens += call.cachedInputTokens
        metrics.outputTokens += call.outputTokens
        metrics.reasoningTokens += call.reasoningTokens
        metrics.cacheWriteTokens += call.cacheWriteTokens
        metrics.usd = None if metrics.usd is None or call.usd is None else metrics.usd + call.usd
        metrics.llmCalls += call.sent  # a request the run's refusal memo kept back is no model call
        metrics.cachedResponses += call.cached
        metrics.infraErrors += call.status == "infrastructure"
    metrics.maintenanceRuns = sum(m.status == "compressed" for run in view.runs for m in run.maintenance)
    metrics.toolCalls = len(marks)
    metrics.repeatedToolCalls = sum(m.repeated for m in marks)
    metrics.duplicateSignatureCalls = sum(m.duplicate_signature for m in marks)
    record.metrics = metrics


def call_metric(snap: dict[str, Any]) -> CallMetric:
    """A call's accounting from its snapshot; a failed call has no usage and costs nothing; a call
    priced nowhere (a local model) has ``usd`` None, never 0."""
    usage = snap.get("usage") or {}
    usd = snap.get("usd")
    unpriced = usd is None and snap.get("usage") is not None and snap.get("priceKnown") is False
    error = snap.get("error")
    retries = snap.get("retries") or []
    finish = (snap.get("response") or {}).get("finishReason")
    sent = snap.get("sampling")
    if not isinstance(sent, dict):  # a failed call, or one recorded before sampling was kept: what was asked
        params = (snap.get("request") or {}).get("params") or {}
        sent = {k: params[k] for k in ("temperature", "top_p", "seed") if params.get(k) is not None}
    return CallMetric(
        seq=int(snap["seq"]), runId=str(snap.get("runId") or ""), role=str(snap.get("role")),
        model=str(snap.get("model")), inputTokens=int(usage.get("input_tokens", 0)),
        cachedInputTokens=int(usage.get("cached_input_tokens", 0)), outputTokens=int(usage.get("output_tokens", 0)),
        reasoningTokens=int(usage.get("reasoning_tokens", 0)), cacheWriteTokens=int(usage.get("cache_write_tokens", 0)),
        usd=None if unpriced else float(usd or 0.0), latencyMs=float(snap.get("latencyMs") or 0.0),
        retries=len(retries) if isinstance(retries, list) else int(retries),
        status=str(error.get("kind")) if isinstance(error, dict) else "ok",
        requestSha256=str(snap.get("requestSha256") or ""), snapshotId=str(snap["id"]),
        segments=dict(snap.get("segments") or {}), finishReason=str(finish) if finish else None,
        cached=snap.get("cacheKey") is not None, temperature=sent.get("temperature"), topP=sent.get("top_p"),
        seed=sent.get("seed"), failedAttempts=attempt_kinds(retries, error),
        sent=not (isinstance(error, dict) and error.get("sent") is False))
