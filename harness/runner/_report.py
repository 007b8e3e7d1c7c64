"""report.json content (O-2) from an experiment's trial records: statuses, pass rates, comparisons,
findings and caveats. Field names are the spec's camelCase names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import harness
from harness.analysis import (
    BaselineComparison,
    ConversationOutcome,
    compare_with_baseline,
    compare_with_control,
    derive_findings,
    pass_hat_ks,
)
from harness.models import Prices
from harness.plan import Price
from harness.report import (
    BudgetReport,
    GroupReport,
    ModelInfo,
    PassRate,
    PlanRef,
    Report,
    RunReport,
    StageReport,
    ToolCallRecord,
    TrialReport,
)
from harness.report import TrialMetrics as ReportMetrics
from protocols import resolve

from ._cache import cache_caveats
from ._caveats import not_exercised_caveats, repeat_caveats, unsupported_input_caveats
from ._records import TrialMetrics, TrialRecord
from ._runner import Experiment


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


def transcript_path(r: TrialRecord) -> str:
    name = f"{r.repeat}" if r.attempt == 0 else f"{r.repeat}~{r.attempt}"
    return f"transcripts/{r.group}/{r.stage}/{name}.jsonl"


def _metrics(m: TrialMetrics) -> ReportMetrics:
    return ReportMetrics(**m.model_dump(exclude={"infraErrors"}))


def _trial(r: TrialRecord) -> TrialReport:
    runs = []
    for turn, run in enumerate(r.runs, 1):
        calls = [ToolCallRecord(step=c.step, callId=c.callId, toolName=c.toolName, argsSha256=c.argsSha256,
                                resultSha256=c.resultSha256, success=c.success, errorCode=c.errorCode,
                                repeated=c.repeated, duplicateSignature=c.duplicateSignature)
                 for c in r.toolCalls if c.runId == run.run_id]
        runs.append(RunReport(runId=run.run_id, turn=turn, input=run.input, finalAnswer=run.final_answer,
                              status=run.status, steps=run.steps, toolCalls=calls))
    return TrialReport(
        id=r.id, repeat=r.repeat, attempt=r.attempt, status=r.status, sessionId=r.sessionId,
        transcript=transcript_path(r) if r.sessionId else None, startedAt=r.startedAt, finishedAt=r.finishedAt,
        error=r.reason, failureMode=r.failureMode, failureDetail=r.failureDetail,  # type: ignore[arg-type]
        sampling=r.sampling, runs=runs, checks=r.checks,
        metrics=_metrics(r.metrics))


def _stage(exp: Experiment, group: str, stage_id: str) -> StageReport | None:
    status = exp.outcomes.get((group, stage_id))
    if status is None:
        return None
    stage = exp.plan.stage(stage_id)
    trials = [_trial(r) for r in exp.stage_records(group, stage_id)]
    report = StageReport.summarise(stage_id, status, trials, label=stage.label or stage_id, addition=stage.addition)
    passes, n = counts(exp, group, stage_id)  # the deciding attempt of each repeat only
    return report.model_copy(update={"passRate": PassRate.of(passes, n),
                                     "passHatK": pass_hat_ks(passes, n) if n else {}})


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


def build_report(exp: Experiment, request: Any, experiment_id: str, status: str, stop_reason: str | None,
                 preflight: list[dict[str, Any]]) -> Report:
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
    group_ids = [g.id for g in exp.selected_groups()]
    all_counts = {g: {st: counts(exp, g, st) for (gg, st) in exp.outcomes if gg == g} for g in group_ids}
    findings = derive_findings(spec, outcomes, counts=all_counts, maintenance_ran=ran,
                               model_kind=kind, baseline_maintenance_ran=baseline_ran)  # type: ignore[arg-type]
    comparisons = list(compare_with_control(
        all_counts, spec.placementControl, [st.id for st in plan.stages], group_ids))
    baseline: list[BaselineComparison] = []
    if spec.baselineGroup and spec.baselineStage:
        conv = {g: o for g in group_ids if (o := _conversation(exp, g, spec.baselineStage)) is not None}
        if spec.baselineGroup in conv:
            others = [g for g in conv if g != spec.baselineGroup]
            baseline = compare_with_baseline(spec.baselineStage, conv, spec.baselineGroup, others)
    groups = [_group(exp, g.id) for g in exp.selected_groups()]
    sampling = plan.models.sampling.model_dump()
    caveats = unsupported_input_caveats(exp.records, s.agent_model) + list(findings.caveats)
    caveats += not_exercised_caveats(groups)
    caveats += repeat_caveats(groups, sampling)
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
    caveats += [f"price of {m}: {e.source}" for m, e in sorted(exp.prices.entries.items())]
    caveats += cache_caveats([(r.group, r.stage, c.cached) for r in exp.records for c in r.calls],
                             None if s.cache_dir is None else str(s.cache_dir))
    used = sorted({s.agent_model, s.maintainer_model})
    return Report(
        harnessVersion=harness.__version__, createdAt=datetime.now(UTC), experimentId=experiment_id,
        status=status, stopReason=stop_reason,  # type: ignore[arg-type]
        plan=PlanRef(id=plan.id, sha256=request.plan_sha256, path=request.plan_path),
        model=ModelInfo(agent=s.agent_model, maintainer=s.maintainer_model, kind=kind,  # type: ignore[arg-type]
                        apiBase=s.api_base, sampling=sampling,
                        prices={m: _price(exp.prices.entries[m].prices) for m in used if m in exp.prices.entries}),
        budget=BudgetReport(limits=exp.ledger.limits, spent=exp.ledger.snapshot()),
        groups=groups,
        comparisons=comparisons, baselineComparisons=baseline, findings=findings.findings, caveats=caveats)


def _price(p: Prices) -> Price:
    return Price(inputPerMTok=p.input_per_mtok, outputPerMTok=p.output_per_mtok,
                 cachedInputPerMTok=p.cached_input_per_mtok)


def _group(exp: Experiment, group_id: str) -> GroupReport:
    g = exp.plan.group(group_id)
    protocol = resolve(g.protocol.id, g.protocol.version, g.protocol.options)
    stages = [st for st in (_stage(exp, group_id, s.id) for s in exp.plan.stages) if st is not None]
    return GroupReport.from_spec(g, protocol.resolved_options, stages)
