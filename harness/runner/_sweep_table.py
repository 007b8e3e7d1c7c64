"""A sweep's model × group × stage table, findings and caveats, from each model's report.json."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from harness.analysis import StageOutcome, SweepFinding, cross_model_findings
from harness.plan import Plan
from harness.report import Report, StageReport, SweepCell, SweepReport


def failure_modes(stage: StageReport) -> dict[str, int]:
    """Failed trials by their ``failureMode`` (the evidence classifier's label; ``unclassified`` without one)."""
    modes = Counter(str(getattr(t, "failureMode", None) or "unclassified") for t in stage.trials
                    if t.status == "failed")
    return dict(sorted(modes.items()))


def sweep_table(reports: Mapping[str, Report]) -> list[SweepCell]:
    cells = []
    for model, report in reports.items():
        for group in report.groups:
            for stage in group.stages:
                rate, m = stage.passRate, stage.metrics
                distinct = getattr(stage, "distinctAnswers", None)
                cells.append(SweepCell(
                    model=model, group=group.id, stage=stage.id, status=stage.status, passes=rate.passes, n=rate.n,
                    passRate=rate.value, wilson95=rate.wilson95 if rate.n else None,
                    failureModes=failure_modes(stage), distinctAnswers=distinct if isinstance(distinct, int) else None,
                    inputTokens=m.inputTokens, outputTokens=m.outputTokens, usd=m.usd, llmCalls=m.llmCalls,
                    cachedResponses=m.cachedResponses))
    return cells


def outcomes_of(report: Report) -> dict[str, dict[str, StageOutcome]]:
    return {g.id: {s.id: StageOutcome(status=s.status, passes=s.passRate.passes, n=s.passRate.n,
                                      failure_modes=failure_modes(s)) for s in g.stages} for g in report.groups}


def sweep_findings(plan: Plan, reports: Mapping[str, Report]) -> list[SweepFinding]:
    per_model = {model: outcomes_of(r) for model, r in reports.items()}
    findings = {model: list(r.findings) for model, r in reports.items()}
    return cross_model_findings(plan.findings, per_model, [g.id for g in plan.groups], findings)


def sweep_caveats(sweep: SweepReport, reports: Mapping[str, Report]) -> list[str]:
    out = [f"One plan ({sweep.plan.id}, sha256 {sweep.plan.sha256[:12]}…) run once per model, each model in its own "
           "run directory with its own report; the budget was shared: each model's run had the sweep's caps minus "
           "what the models before it spent."]
    kinds = {m.kind for m in sweep.models}
    if kinds == {"scripted"}:
        out.append("Scripted models: this sweep checks the harness mechanisms, not LLM behaviour; nothing here is "
                   "evidence about any real model (X-42).")
    for m in sweep.models:
        if m.status == "not_run":
            why = f" ({m.stopReason})" if m.stopReason else " (the sweep stopped before it)"
            out.append(f"{m.model} was not run{why}: it is absent from the table and the findings.")
        elif m.status == "stopped":
            out.append(f"{m.model} stopped early ({m.stopReason}); its stages not decided are skipped or not_reached; "
                       f"`harness run PLAN --resume DIR` continues the sweep.")
        elif m.status == "pending":
            out.append(f"{m.model} has not run yet.")
    cached = {m: r.budget.spent.cachedResponses for m, r in reports.items() if r.budget.spent.cachedResponses}
    live = {m for m, r in reports.items() if r.budget.spent.llmCalls}
    if cached:
        out.append("Responses from the response cache (no model call, $0): "
                   + ", ".join(f"{m} {n}" for m, n in cached.items())
                   + (". USD and latency are not comparable between models served from the cache and models called "
                      "live." if live else "."))
    return out
