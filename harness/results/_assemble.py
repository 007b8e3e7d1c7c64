"""report.json content (O-2) from an experiment's trial records: statuses, pass rates, comparisons,
findings and caveats. Field names are the spec's camelCase names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import harness
from harness.analysis import (
    BaselineComparison,
    ConversationOutcome,
    SequentialResult,
    compare_with_baseline,
    compare_with_control,
    derive_findings,
    derive_rate_findings,
    pass_hat_ks,
    review_design,
    run_families,
    sequential_finding,
    with_wire_confounds,
)
from protocols import resolve

from ._caveats import (
    cache_caveats,
    not_exercised_caveats,
    pass_shape_caveats,
    repeat_caveats,
    thinking_caveats,
    unattributed_caveats,
    unsent_caveats,
    unsupported_input_caveats,
)
from ._differences import findings_role, group_differences, wire_beyond
from ._expect import evaluate
from ._infra import infrastructure
from ._models import (
    BudgetReport,
    GroupReport,
    ModelInfo,
    ModelPrice,
    PassRate,
    PlanRef,
    Report,
    RunReport,
    Spent,
    StageReport,
    ToolCallRecord,
    TrialReport,
)
from ._models import TrialMetrics as ReportMetrics
from ._preflight import PreflightEntry, preflight_caveats
from ._records import TrialMetrics, TrialRecord, transcript_name
from ._run_view import RunView
from ._sequential import sequential_results


def model_kind(model: str) -> str:
    """X-42: a run is scripted iff its agent model is ``scripted/*`` (never mixed with real runs)."""
    return "scripted" if model.startswith("scripted/") else "real"


def sum_metrics(records: list[TrialRecord]) -> TrialMetrics:
    total = TrialMetrics()
    for r in records:
        for name in TrialMetrics.model_fields:
            a, b = getattr(total, name), getattr(r.metrics, name)
            setattr(total, name, None if a is None or b is None else a + b)  # usd: unknown stays unknown
    return total


def compressions(records: list[TrialRecord], trigger: str) -> int:
    """Maintenances that compressed something, started by ``trigger`` (threshold, explicit, agent)."""
    return sum(m.status == "compressed" and m.trigger == trigger
               for r in records for run in r.runs for m in run.maintenance)


def counts(exp: RunView, group: str, stage: str) -> tuple[int, int]:
    """(passes, n) over decided trials: errors and skips have no verdict and are not in n."""
    final = [r for r in exp.decided(group, stage).values() if r.status in ("passed", "failed")]
    return sum(r.status == "passed" for r in final), len(final)


def samples(exp: RunView, group: str, stage: str) -> tuple[int, int]:
    """The independent samples behind ``counts`` when repeats are not independent draws: at most the
    distinct passing answers and the distinct failing ones (a trial's answer: its turns' final answers)."""
    final = [r for r in exp.decided(group, stage).values() if r.status in ("passed", "failed")]
    answers = {s: {tuple((run.final_answer or "").strip() for run in r.runs) for r in final if r.status == s}
               for s in ("passed", "failed")}
    return len(answers["passed"]), len(answers["passed"]) + len(answers["failed"])


def _one_sample(exp: RunView, result: SequentialResult, independent: dict[str, Any] | None) -> list[str]:
    """``A 1 distinct of 8``: each compared group of a stopped sequential stage whose repeats up to the stop
    gave fewer distinct answers than trials, when repeats are not sampled draws."""
    if independent is None or not result.looks:
        return []
    groups = dict.fromkeys(g for c in result.looks[-1].comparisons for g in (c.group, c.other))
    out = []
    for g in groups:
        final = [r for r in exp.decided(g, result.stage).values()
                 if r.status in ("passed", "failed") and r.repeat <= result.ranTo]
        distinct = len({tuple((run.final_answer or "").strip() for run in r.runs) for r in final})
        if distinct < len(final):
            out.append(f"{g} {distinct} distinct of {len(final)}")
    return out


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
        transcript=transcript_name(r) if r.sessionId else None, startedAt=r.startedAt, finishedAt=r.finishedAt,
        error=r.reason, failureMode=r.failureMode, failureDetail=r.failureDetail,
        passShape=r.passShape,
        sampling=r.sampling, runs=runs, checks=r.checks,
        metrics=_metrics(r.metrics))


def _stage(exp: RunView, group: str, stage_id: str) -> StageReport | None:
    status = exp.outcomes.get((group, stage_id))
    if status is None:
        return None
    stage = exp.plan.stage(stage_id)
    trials = [_trial(r) for r in exp.stage_records(group, stage_id)]
    report = StageReport.summarise(stage_id, status, trials, label=stage.label or stage_id, addition=stage.addition)
    passes, n = counts(exp, group, stage_id)  # the deciding attempt of each repeat only
    return report.model_copy(update={"passRate": PassRate.of(passes, n),
                                     "passHatK": pass_hat_ks(passes, n) if n else {}})


def _conversation(exp: RunView, group: str, stage: str) -> ConversationOutcome | None:
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


def build_report(exp: RunView, request: Any, experiment_id: str, status: str, stop_reason: str | None,
                 preflight: list[dict[str, Any]]) -> Report:
    plan, s = exp.plan, exp.settings
    kind = model_kind(s.agent_model)
    outcomes: dict[str, dict[str, Any]] = {}
    for (group, stage), st in exp.outcomes.items():
        outcomes.setdefault(group, {})[stage] = st
    spec, alpha, test = plan.findings, plan.analysis.alpha, plan.analysis.test
    ran = compressions(exp.records, "threshold") > 0  # X-44, P-91 speak of *automatic* compression
    group_ids = [g.id for g in exp.selected_groups()]
    all_counts = {g: {st: counts(exp, g, st) for (gg, st) in exp.outcomes if gg == g} for g in group_ids}
    baseline_ran = None  # P-91's caveat speaks of a comparison with the baseline: only when one was made
    compared = spec.baselineStage is not None and any(
        all_counts[g].get(spec.baselineStage, (0, 0))[1] for g in group_ids if g != spec.baselineGroup)
    if spec.baselineGroup and spec.baselineGroup in outcomes and compared:
        baseline_ran = compressions([r for r in exp.records if r.group == spec.baselineGroup], "threshold") > 0
    temperature = plan.models.sampling.temperature  # sampled repeats are independent draws (caveat if not)
    independent = None if temperature is not None and temperature > 0 else {
        g: {st: samples(exp, g, st) for st in per} for g, per in all_counts.items()}
    a = plan.analysis  # one family for every claim of difference in the report, held at alpha together
    family, as_counts = run_families(spec, all_counts, independent, alpha, test, a.family, a.familyMethod)
    if spec.rules == "placement-rates":  # sampled repeats without gating: rates, not pass^k
        findings = derive_rate_findings(spec, all_counts, outcomes, model_kind=kind,  # type: ignore[arg-type]
                                        maintenance_ran=ran, alpha=alpha, test=test, samples=independent,
                                        family=family)
    else:
        findings = derive_findings(spec, outcomes, counts=all_counts, maintenance_ran=ran, samples=independent,
                                   model_kind=kind, baseline_maintenance_ran=baseline_ran,  # type: ignore[arg-type]
                                   alpha=alpha, test=test, family=family, as_counts=as_counts)
    differences = group_differences(exp, preflight)
    confounds = {d.group: " ".join(w.summary for w in d.wire if wire_beyond(findings_role(spec, d.group), w))
                 for d in differences}
    findings = findings.model_copy(update={"findings": with_wire_confounds(
        findings.findings, spec, {g: text for g, text in confounds.items() if text})})
    comparisons = list(compare_with_control(
        all_counts, spec.placementControl, [st.id for st in plan.stages], group_ids, alpha=alpha, test=test,
        samples=independent, family=family))
    sequential = sequential_results(exp)
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
    caveats += pass_shape_caveats(groups)
    caveats += repeat_caveats(groups, sampling)
    caveats += thinking_caveats(s.agent_model, plan.models, exp.agent_calls.extra)
    caveats += unsent_caveats(s.agent_model, s.maintainer_model, exp.agent_calls.unsent,
                              exp.agent_calls.maintainer_unsent)
    asked = compressions(exp.records, "agent")
    if asked and not ran:
        caveats.append(f"Compression ran {asked} time(s), each because the agent called context_compress: that "
                       "exercises the maintainer and read-back of compressed folds, not the token-threshold trigger.")
    caveats += preflight_caveats(preflight)
    caveats += [f"stage {st.id} is an addition to the source plan (X-70)" for st in plan.stages if st.addition]
    if s.stages is not None:
        caveats.append(f"only stages {', '.join(s.stages)} were selected (--stage); requirements on other stages "
                       "were taken as met")
    if s.groups is not None:
        caveats.append(f"only groups {', '.join(s.groups)} were selected (--group)")
    if stop_reason:
        caveats.append(f"the experiment stopped early ({stop_reason}); stages not decided are skipped or not_reached")
    used = sorted({s.agent_model, s.maintainer_model})
    caveats += [f"price of {m}: {exp.prices.note(m)}" for m in used if m in exp.prices.entries]
    caveats += cache_caveats([(r.group, r.stage, c.cached) for r in exp.records for c in r.calls],
                             None if s.cache_dir is None else str(s.cache_dir))
    budget = budget_report(exp, used)
    caveats += unattributed_caveats(exp.records, budget.spent.llmCalls,
                                    budget.spent.inputTokens + budget.spent.outputTokens)
    overrides = list(getattr(request, "overrides", []))
    caveats += [f"the plan ran with command-line overrides: {', '.join(o.option for o in overrides)}"] if overrides \
        else []
    return Report(
        harnessVersion=harness.__version__, createdAt=datetime.now(UTC), experimentId=experiment_id,
        status=status, stopReason=stop_reason, stopDetail=exp.ledger.stop_detail,
        plan=PlanRef(id=plan.id, sha256=request.plan_sha256, path=request.plan_path),
        model=ModelInfo(agent=s.agent_model, maintainer=s.maintainer_model, kind=kind,
                        apiBase=s.api_base, sampling=sampling,
                        prices={m: ModelPrice(**exp.prices.wire([m])[m]) for m in used},
                        reasoningEffort=plan.models.reasoningEffort, params=plan.models.params,
                        thinkingBudgetTokens=exp.agent_calls.thinking_budget,
                        notSent={u.name: u.why for u in exp.agent_calls.unsent},
                        maintainerNotSent={u.name: u.why for u in exp.agent_calls.maintainer_unsent}),
        budget=budget,
        groups=groups,
        comparisons=comparisons, family=family.summary, baselineComparisons=baseline, caveats=caveats,
        findings=[*findings.findings, *(sequential_finding(r, outcomes, _one_sample(exp, r, independent))
                                        for r in sequential)],
        expectations=evaluate(plan, list(getattr(request, "expect", [])), exp.outcomes), overrides=overrides,
        infrastructure=infrastructure(group_ids, exp.records), infraRetries=plan.stop.infraRetries,
        preflight=[PreflightEntry.model_validate(p) for p in preflight], groupDifferences=differences,
        design=review_design(plan), sequential=sequential or None)


def budget_report(exp: RunView, models: list[str]) -> BudgetReport:
    """Limits and spent; with a model whose price is unknown the USD total is unknown (null, never
    $0) and ``maxUsd`` is reported as not applicable to that model's calls."""
    spent: Spent = exp.ledger.snapshot()
    unpriced = exp.prices.unpriced(models)
    not_applicable: dict[str, str] = {}
    if unpriced:
        spent = Spent(**{**spent.model_dump(), "usd": None})
        local = [m for m in unpriced if (e := exp.prices.entries.get(m)) is not None and e.source == "local-unknown"]
        why = "price unknown (local model)" if local == unpriced else "price unknown"
        not_applicable["maxUsd"] = (f"{why} for {', '.join(unpriced)}: its calls are not counted in USD; the token "
                                    "and call caps still apply")
    return BudgetReport(limits=exp.ledger.limits, spent=spent, notApplicable=not_applicable)


def _group(exp: RunView, group_id: str) -> GroupReport:
    g = exp.plan.group(group_id)
    protocol = resolve(g.protocol.id, g.protocol.version, g.protocol.options)
    stages = [st for st in (_stage(exp, group_id, s.id) for s in exp.plan.stages) if st is not None]
    return GroupReport.from_spec(g, protocol.resolved_options, stages, term=exp.plan.findings.term(group_id))
