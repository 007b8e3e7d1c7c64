"""sweep.json: one plan run once per model into one directory (``harness run PLAN --model M1 --model M2``).

``D/<slug>/`` holds each model's ordinary run directory (report.json, metrics.duckdb, …);
``D/sweep.json`` is this model: what ran, the shared budget, the model × group × stage table and
the findings across models. It is rewritten after every model, so an interrupted sweep says how
far it got, and ``harness run PLAN --resume D`` continues it.

Also here: a sweep's model × group × stage table, findings and caveats, from each model's report.json."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.analysis import (
    FamilySummary,
    ModelKind,
    StageOutcome,
    StageStatus,
    SweepFinding,
    cross_model_findings,
    model_findings,
    sweep_family,
)
from harness.plan import BudgetSpec, Plan

from ._json import ReportError, write_json_atomic
from ._models import PlanRef, Report, Spent, StageReport
from ._workflow import ExpectationResult

SWEEP_SCHEMA_VERSION: Literal[1] = 1
SWEEP_FILE = "sweep.json"

ModelRunStatus = Literal["pending", "completed", "stopped", "failed", "not_run"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SweepModelRun(_Model):
    model: str
    maintainer: str
    slug: str = Field(description="The model's run directory under the sweep directory.")
    kind: ModelKind
    status: ModelRunStatus
    stopReason: str | None = None
    limits: BudgetSpec | None = Field(None, description="The caps this model's run had: the sweep's remainder.")
    spent: Spent = Spent()
    findingRule: str | None = Field(None, description="The rule of the model's own first finding (X-40).")
    expectations: list[ExpectationResult] = Field(
        default_factory=list, description="The CI gate on this model's run: every model must meet every expectation.")


class SweepCell(_Model):
    """One model × group × stage, from that model's report.json."""

    model: str
    group: str
    stage: str
    status: StageStatus
    passes: int = 0
    n: int = 0
    passRate: float | None = None
    wilson95: tuple[float, float] | None = None
    failureModes: dict[str, int] = Field(default_factory=dict, description="Failed trials by failure mode.")
    distinctAnswers: int | None = None
    inputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = 0.0
    llmCalls: int = 0
    cachedResponses: int = 0


class SweepBudget(_Model):
    limits: BudgetSpec
    spent: Spent = Spent()


class SweepReport(_Model):
    schemaVersion: Literal[1] = SWEEP_SCHEMA_VERSION
    kind: Literal["sweep"] = "sweep"
    harnessVersion: str
    createdAt: datetime
    updatedAt: datetime
    status: Literal["running", "completed", "stopped"]
    stopReason: str | None = None
    plan: PlanRef
    groups: list[str] = Field(default_factory=list, description="Group ids in plan order.")
    stages: list[str] = Field(default_factory=list, description="Stage ids in plan order.")
    budget: SweepBudget
    overrides: dict[str, Any] = Field(
        default_factory=dict, description="--temperature / --seed / --repeats every model ran with (a resume keeps "
                                          "them).")
    models: list[SweepModelRun]
    table: list[SweepCell] = Field(default_factory=list)
    findings: list[SweepFinding] = Field(default_factory=list)
    family: FamilySummary | None = Field(
        None, description="The sweep's family: every model's comparisons held at alpha together (null in sweeps "
                          "written before the family).")
    caveats: list[str] = Field(default_factory=list)


def write_sweep(sweep: SweepReport, directory: Path) -> Path:
    return write_json_atomic(sweep.model_dump_json(indent=2) + "\n", directory / SWEEP_FILE)


def is_sweep(directory: Path) -> bool:
    return (directory / SWEEP_FILE).is_file()


def read_sweep(directory: Path) -> SweepReport:
    path = directory / SWEEP_FILE
    try:
        return SweepReport.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{directory} is not a sweep directory (no {SWEEP_FILE})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read {path}: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReportError(f"{path} is not a valid sweep ({exc.error_count()} problem(s); first: {where}: "
                          f"{first['msg']})") from None


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


def _samples(stage: StageReport) -> tuple[int, int]:
    """(distinct passing answers, distinct answers): the independent samples behind the pass rate when the
    repeats are not sampled draws."""
    answers = {s: {tuple((r.finalAnswer or "").strip() for r in t.runs) for t in stage.trials if t.status == s}
               for s in ("passed", "failed")}
    return len(answers["passed"]), len(answers["passed"]) + len(answers["failed"])


def outcomes_of(report: Report) -> dict[str, dict[str, StageOutcome]]:
    temperature = report.model.sampling.get("temperature")
    drawn = isinstance(temperature, int | float) and temperature > 0
    return {g.id: {s.id: StageOutcome(status=s.status, passes=s.passRate.passes, n=s.passRate.n,
                                      failure_modes=failure_modes(s), samples=None if drawn else _samples(s))
                   for s in g.stages} for g in report.groups}


def sweep_findings(plan: Plan, reports: Mapping[str, Report]) -> tuple[list[SweepFinding], FamilySummary]:
    """The findings across models, every claim of difference held in the sweep's family (every model's
    comparisons together), and that family's description."""
    a, spec = plan.analysis, plan.findings
    per_model = {model: outcomes_of(r) for model, r in reports.items()}
    families = sweep_family(spec, per_model, a.alpha, a.test, a.family, a.familyMethod)
    findings = {model: model_findings(spec, model, per_model[model], families, a.alpha, a.test, r.findings)
                for model, r in reports.items()}
    found = cross_model_findings(spec, per_model, [g.id for g in plan.groups], findings, alpha=a.alpha, test=a.test,
                                 family=families[0])
    return found, families[0].summary


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
