"""report.json content (O-2) from an experiment's trial records: statuses, pass rates, comparisons,
findings and caveats. Field names are the spec's camelCase names."""

from __future__ import annotations

from typing import Any

import harness
from harness.analysis import (
    ConversationOutcome,
    compare_with_baseline,
    compare_with_control,
    derive_findings,
    pass_hat_ks,
    wilson_interval,
)
from protocols import resolve

from ._records import TrialMetrics, TrialRecord
from ._runner import Experiment
from ._trial import now

SCHEMA_VERSION = "1.0"


def model_kind(model: str) -> str:
    """X-42: a run is scripted iff its agent model is ``scripted/*`` (never mixed with real runs)."""
    return "scripted" if model.startswith("scripted/") else "real"


def sum_metrics(records: list[TrialRecord]) -> TrialMetrics:
    total = TrialMetrics()
    for r in records:
        for name in TrialMetrics.model_fields:
            setattr(total, name, getattr(total, name) + getattr(r.metrics, name))
    return total


def counts(exp: Experiment, group: str, stage: str) -> tuple[int, int]:
    """(passes, n) over decided trials: errors and skips have no verdict and are not in n."""
    final = [r for r in exp.decided(group, stage).values() if r.status in ("passed", "failed")]
    return sum(r.status == "passed" for r in final), len(final)


def _trial(r: TrialRecord) -> dict[str, Any]:
    return {
        "id": r.id, "repeat": r.repeat, "attempt": r.attempt, "status": r.status, "reason": r.reason,
        "sessionId": r.sessionId, "startedAt": r.startedAt, "finishedAt": r.finishedAt,
        "runs": [{"runId": run.run_id, "input": run.input, "finalAnswer": run.final_answer, "status": run.status,
                  "steps": run.steps, "errorClass": run.error_class, "error": run.error} for run in r.runs],
        "checks": [c.model_dump() for c in r.checks],
        "metrics": r.metrics.model_dump(),
    }


def _stage(exp: Experiment, group: str, stage_id: str) -> dict[str, Any] | None:
    status = exp.outcomes.get((group, stage_id))
    if status is None:
        return None
    stage = exp.plan.stage(stage_id)
    records = exp.stage_records(group, stage_id)
    passes, n = counts(exp, group, stage_id)
    low, high = wilson_interval(passes, n)
    return {
        "id": stage_id, "label": stage.label or stage_id, "addition": stage.addition, "status": status,
        "passHatK": {str(k): v for k, v in pass_hat_ks(passes, n).items()} if n else {},
        "passRate": {"passes": passes, "n": n, "value": passes / n if n else None, "wilson95": [low, high]},
        "trials": [_trial(r) for r in records],
        "metrics": sum_metrics(records).model_dump(),
    }


def _conversation(exp: Experiment, group: str, stage: str) -> ConversationOutcome | None:
    status = exp.outcomes.get((group, stage))
    if status is None:
        return None
    records = exp.stage_records(group, stage)
    m = sum_metrics(records)
    passes, n = counts(exp, group, stage)
    return ConversationOutcome(status=status, passes=passes, n=n, trials=len(records),
                               repeatedToolCalls=m.repeatedToolCalls, duplicateSignatureCalls=m.duplicateSignatureCalls,
                               inputTokens=m.inputTokens, cachedInputTokens=m.cachedInputTokens,
                               outputTokens=m.outputTokens, usd=m.usd, maintenanceRuns=m.maintenanceRuns)


def build_report(exp: Experiment, request: Any, status: str, stop_reason: str | None,
                 preflight: list[dict[str, Any]]) -> dict[str, Any]:
    plan, s = exp.plan, exp.settings
    kind = model_kind(s.agent_model)
    outcomes: dict[str, dict[str, Any]] = {}
    for (group, stage), st in exp.outcomes.items():
        outcomes.setdefault(group, {})[stage] = st
    spec = plan.findings
    ran = sum_metrics(exp.records).maintenanceRuns > 0
    baseline_ran = None
    if spec.baselineGroup and spec.baselineGroup in outcomes:
        baseline_ran = sum_metrics([r for r in exp.records if r.group == spec.baselineGroup]).maintenanceRuns > 0
    findings = derive_findings(spec, outcomes, maintenance_ran=ran, model_kind=kind,  # type: ignore[arg-type]
                               baseline_maintenance_ran=baseline_ran)
    group_ids = [g.id for g in exp.selected_groups()]
    all_counts = {g: {st: counts(exp, g, st) for (gg, st) in exp.outcomes if gg == g} for g in group_ids}
    comparisons = [c.model_dump() for c in compare_with_control(
        all_counts, spec.placementControl, [st.id for st in plan.stages], group_ids)]
    baseline: list[dict[str, Any]] = []
    if spec.baselineGroup and spec.baselineStage:
        conv = {g: o for g in group_ids if (o := _conversation(exp, g, spec.baselineStage)) is not None}
        if spec.baselineGroup in conv:
            others = [g for g in conv if g != spec.baselineGroup]
            baseline = [c.model_dump() for c in compare_with_baseline(spec.baselineStage, conv, spec.baselineGroup,
                                                                       others)]
    caveats = list(findings.caveats)
    caveats += [f"preflight {p['group']} ({p['protocol']} on {p['model']}): {p['verdict']}: {p['message']}"
                for p in preflight if p.get("flagged")]
    caveats += [f"stage {st.id} is an addition to the source plan (X-70)" for st in plan.stages if st.addition]
    if s.stages is not None:
        caveats.append(f"only stages {', '.join(s.stages)} were selected (--stage); requirements on other stages "
                       "were taken as met")
    if s.groups is not None:
        caveats.append(f"only groups {', '.join(s.groups)} were selected (--group)")
    if stop_reason:
        caveats.append(f"the experiment stopped early ({stop_reason}); stages not decided are skipped or not_reached")
    sampling = plan.models.sampling.model_dump()
    return {
        "schemaVersion": SCHEMA_VERSION,
        "harnessVersion": harness.__version__,
        "createdAt": now(),
        "status": status,
        "stopReason": stop_reason,
        "plan": {"id": plan.id, "title": plan.title, "question": plan.question, "sha256": request.plan_sha256,
                 "path": request.plan_path},
        "model": {"agent": s.agent_model, "maintainer": s.maintainer_model, "kind": kind, "apiBase": s.api_base,
                  "sampling": sampling, "prices": exp.prices.wire(sorted({s.agent_model, s.maintainer_model}))},
        "budget": {"limits": exp.ledger.limits.model_dump(), "spent": exp.ledger.snapshot().model_dump()},
        "preflight": preflight,
        "groups": [_group(exp, g.id) for g in exp.selected_groups()],
        "comparisons": comparisons,
        "baselineComparisons": baseline,
        "findings": [f.model_dump() for f in findings.findings],
        "caveats": caveats,
        "totals": sum_metrics(exp.records).model_dump(),
    }


def _group(exp: Experiment, group_id: str) -> dict[str, Any]:
    g = exp.plan.group(group_id)
    protocol = resolve(g.protocol.id, g.protocol.version, g.protocol.options)
    stages = [st for st in (_stage(exp, group_id, s.id) for s in exp.plan.stages) if st is not None]
    return {"id": g.id, "label": g.label, "role": g.role,
            "protocol": {"id": g.protocol.id, "version": g.protocol.version, "options": protocol.resolved_options},
            "stages": stages}
