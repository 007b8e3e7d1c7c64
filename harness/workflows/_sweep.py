"""Model sweeps: ``harness run PLAN --model M1 --model M2 … --out D`` runs the plan once per model.

    D/sweep.json        the sweep: plan, models, shared budget, model × group × stage table, findings
    D/sweep.html, .md   the same, rendered (``harness report D`` re-renders them)
    D/<model-slug>/     each model's ordinary run directory (``harness report/compare/rescore`` read it)

The models run one after another, each as an ordinary run. Every model's prices are resolved
before the first call (X-22). The budget is shared: each model's run gets the sweep's caps minus
what the earlier models spent, so the sweep as a whole never exceeds a cap. A stop (budget,
interrupt, wall clock) ends the sweep; models not started are ``not_run``. ``--resume D`` keeps the
completed models, resumes a stopped one and starts the rest.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import harness
from harness.plan import BudgetSpec
from harness.results import (
    PlanRef,
    ReportError,
    Spent,
    SweepBudget,
    SweepModelRun,
    SweepReport,
    is_sweep,
    read_report,
    read_sweep,
    write_sweep,
)
from harness.results._assemble import model_kind
from harness.results._sweep import sweep_caveats, sweep_findings, sweep_table
from harness.runner._cache import check_cache
from harness.runner._execute import RunOutcome, RunRequest, check_params, effective_budget, execute, prepare_prices
from harness.runner._lock import exclusive
from harness.runner._overrides import check_same_overrides
from harness.runner._persist import MANIFEST, ResumeRefused, RunDir
from harness.runner._prices import PriceTable, PriceUnknown
from harness.runner._reasoning import ParamsRefused
from harness.runner._resume import write_sweep_settings
from harness.runner._stops import StopRequest, interrupt_handlers
from harness.runner._storage import StorageError, storage_problem

RunMember = Callable[[RunRequest], Awaitable[RunOutcome]]
CONTINUE_AFTER = ("provider_unhealthy",)
"""Stop reasons of one model that do not end the sweep: another provider may be healthy."""

_CAPS: dict[str, str] = {"maxUsd": "usd", "maxInputTokens": "inputTokens", "maxOutputTokens": "outputTokens",
                         "maxTotalTokens": "totalTokens", "maxLlmCalls": "llmCalls", "maxWallSeconds": "wallSeconds"}


@dataclass
class SweepRequest:
    base: RunRequest
    """The run every model shares: plan, selection, concurrency, prices, caps (its agent model is unused)."""
    models: list[str]
    maintainer: str | None = None
    """An explicit ``--maintainer-model`` for every model; None = the plan's maintainer, else the agent."""
    resume: bool = False

    @property
    def out_dir(self) -> Path:
        return self.base.out_dir


@dataclass
class SweepOutcome:
    out_dir: Path
    sweep: SweepReport
    runs: dict[str, RunOutcome] = field(default_factory=dict)
    """The models run by this process (a resumed sweep's completed models are not in here)."""
    render_error: str | None = None


def model_slug(model: str, taken: set[str]) -> str:
    """A directory name for ``model``: ``scripted/oracle`` → ``scripted-oracle``; unique among ``taken``."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-.") or "model"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def sweep_errors(request: SweepRequest) -> list[str]:
    """Usage problems found before anything runs (exit 2)."""
    models, errors = request.models, []
    twice = sorted({m for m in models if models.count(m) > 1})
    if twice:
        errors.append(f"--model listed twice: {', '.join(twice)}")
    kinds = {model_kind(m) for m in models}
    if len(kinds) > 1:
        errors.append("a sweep mixes scripted and real models; scripted and real runs are never mixed in one report "
                      "(X-42): sweep them separately")
    for model in models:
        maintainer = maintainer_of(request, model)
        if model_kind(model) != model_kind(maintainer):
            errors.append(f"agent {model} and maintainer {maintainer}: scripted and real models are never mixed "
                          "in one run (X-42)")
    return errors


def maintainer_of(request: SweepRequest, model: str) -> str:
    return request.maintainer or request.base.plan.models.maintainer or model


def member_request(request: SweepRequest, model: str, slug: str, budget: BudgetSpec | None = None,
                   resume: bool = False) -> RunRequest:
    settings = dataclasses.replace(request.base.settings, agent_model=model,
                                   maintainer_model=maintainer_of(request, model))
    return dataclasses.replace(request.base, settings=settings, out_dir=request.out_dir / slug, resume=resume,
                               max_usd=None, max_total_tokens=None, max_llm_calls=None, max_wall_seconds=None,
                               budget=budget or effective_budget(request.base))


def member_slugs(request: SweepRequest) -> dict[str, str]:
    """model → slug: from sweep.json on resume (a resumed sweep keeps its models), else new ones."""
    if request.resume:
        recorded = read_sweep(request.out_dir)
        return {m.model: m.slug for m in recorded.models}
    taken: set[str] = set()
    return {m: model_slug(m, taken) for m in request.models}


def prepare_sweep(request: SweepRequest) -> dict[str, PriceTable]:
    """Every model's price table before any call (X-22): all unknown prices are named at once; then every
    model's parameters (``ParamsRefused`` names each model that does not take one the plan sets)."""
    tables, errors = {}, []
    for model in request.models:
        try:
            tables[model] = prepare_prices(member_request(request, model, "-"))
        except PriceUnknown as exc:
            errors += [f"{model}: {e}" for e in exc.errors]
    if errors:
        raise PriceUnknown(errors)
    refused = []
    for model in request.models:
        try:
            check_params(member_request(request, model, "-"))
        except ParamsRefused as exc:
            refused.append(str(exc))
    if refused:
        raise ParamsRefused("; ".join(refused))
    return tables


def check_sweep_resume(request: SweepRequest) -> SweepReport:
    """The recorded sweep, or ``ResumeRefused`` when the plan or the models differ."""
    try:
        recorded = read_sweep(request.out_dir)
    except ReportError as exc:
        raise ResumeRefused(str(exc)) from None
    if recorded.plan.sha256 != request.base.plan_sha256:
        raise ResumeRefused(f"{request.out_dir} swept plan sha256 {recorded.plan.sha256}, this plan is "
                            f"{request.base.plan_sha256}: a sweep never mixes two plans (X-5)")
    check_same_overrides(recorded.overrides, request.base.override_spec, str(request.out_dir))
    models = [m.model for m in recorded.models]
    if request.models and request.models != models:
        raise ResumeRefused(f"{request.out_dir} sweeps {', '.join(models)}; a resumed sweep keeps its models "
                            "(leave --model out, or start a new sweep)")
    return recorded


def _now() -> datetime:
    return datetime.now(UTC)


def _spent_of(run_dir: Path) -> Spent:
    """What one model's run spent: its report's total when it has one, else its persisted calls."""
    try:
        return Spent(**read_report(run_dir / "report.json").budget.spent.model_dump())
    except ReportError:
        return Spent(**RunDir(run_dir).spent().model_dump())


def remaining_budget(limits: BudgetSpec, others: list[Spent]) -> tuple[BudgetSpec | None, str | None]:
    """The sweep's caps minus what the other models spent; ``(None, cap)`` when a cap is used up."""
    update: dict[str, Any] = {}
    for cap, spent_field in _CAPS.items():
        limit = getattr(limits, cap)
        if limit is None:
            continue
        used = sum((s.inputTokens + s.outputTokens) if spent_field == "totalTokens"
                   else getattr(s, spent_field) or 0  # an unknown USD total (a local model) is not in maxUsd
                   for s in others)
        left = limit - used
        if left <= 0 or (isinstance(limit, int) and left < 1):
            return None, spent_field
        update[cap] = left
    return limits.model_copy(update=update), None


class Sweep:
    """One sweep directory while it runs; ``entries`` are written to sweep.json after every model."""

    def __init__(self, request: SweepRequest, slugs: dict[str, str], recorded: SweepReport | None) -> None:
        self.request = request
        plan, base = request.base.plan, request.base
        self.limits = effective_budget(base)
        created = recorded.createdAt if recorded else _now()
        models = list(slugs)
        self.report = SweepReport(
            harnessVersion=harness.__version__, createdAt=created, updatedAt=_now(), status="running",
            plan=PlanRef(id=plan.id, sha256=base.plan_sha256, path=base.plan_path),
            groups=[g.id for g in plan.groups], stages=[s.id for s in plan.stages],
            budget=SweepBudget(limits=self.limits), overrides=base.override_spec.stored(),
            models=[SweepModelRun(model=m, maintainer=maintainer_of(request, m), slug=slugs[m], kind=model_kind(m),
                                  status="pending") for m in models])

    def entry(self, model: str) -> SweepModelRun:
        return next(e for e in self.report.models if e.model == model)

    def run_dir(self, model: str) -> Path:
        return self.request.out_dir / self.entry(model).slug

    def refresh(self, model: str) -> None:
        """Read one model's state from its run directory (after it ran, or on resume)."""
        entry, path = self.entry(model), self.run_dir(model)
        try:
            report = read_report(path / "report.json")
        except ReportError:
            entry.spent = _spent_of(path) if (path / MANIFEST).exists() else Spent()
            return
        entry.status = report.status
        entry.stopReason = report.stopReason
        entry.spent = Spent(**report.budget.spent.model_dump())
        entry.limits = report.budget.limits
        entry.findingRule = report.findings[0].rule if report.findings else None
        entry.expectations = report.expectations

    def save(self) -> None:
        runs = self.report.models
        total = Spent()
        for e in runs:
            for name in Spent.model_fields:
                a, b = getattr(total, name), getattr(e.spent, name)
                setattr(total, name, None if a is None or b is None else a + b)  # usd: unknown stays unknown
        self.report.budget.spent = total
        self.report.updatedAt = _now()
        write_sweep(self.report, self.request.out_dir)

    def finish(self, stop_reason: str | None) -> None:
        reports = {}
        for e in self.report.models:
            if e.status in ("completed", "stopped", "failed"):
                reports[e.model] = read_report(self.run_dir(e.model) / "report.json")
        plan = self.request.base.plan
        self.report.table = sweep_table(reports)
        self.report.findings, self.report.family = sweep_findings(plan, reports)
        self.report.caveats = sweep_caveats(self.report, reports)
        self.report.status = "stopped" if stop_reason or any(e.status != "completed" for e in self.report.models) \
            else "completed"
        self.report.stopReason = stop_reason
        self.save()


async def execute_sweep(request: SweepRequest, run_member: RunMember | None = None,
                        on_model: Callable[[int, SweepModelRun], None] | None = None) -> SweepOutcome:
    """Run every model in turn (see the module docstring); ``run_member`` runs one model (default ``execute``).

    The sweep directory is locked for the whole sweep (``_lock``), each model's run directory by its run."""
    run = run_member or execute
    out = request.out_dir
    recorded = check_sweep_resume(request) if request.resume else None
    if recorded is not None:
        request = dataclasses.replace(request, models=[m.model for m in recorded.models])
    prepare_sweep(request)  # every price before any directory or call
    if request.base.settings.cache_dir is not None:
        check_cache(request.base.settings.cache_dir)
    if recorded is None and (is_sweep(out) or (out / MANIFEST).exists()):
        raise ResumeRefused(f"{out} already holds a run or a sweep; pass --resume {out} to continue it, "
                            "or choose another --out")
    with exclusive(out, "harness run (sweep)"), interrupt_handlers(interrupt := StopRequest()):
        try:
            return await _sweep(request, run, on_model, recorded, interrupt)
        except Exception as exc:
            if not storage_problem(exc):
                raise
            raise (exc if isinstance(exc, StorageError) else StorageError(out, exc)) from None


async def _sweep(request: SweepRequest, run: RunMember, on_model: Callable[[int, SweepModelRun], None] | None,
                 recorded: SweepReport | None, interrupt: StopRequest) -> SweepOutcome:
    """The models in turn. ``interrupt`` is the sweep's Ctrl-C: whenever it comes (while a model runs,
    renders its report, or between two models) it is one graceful stop of the sweep."""
    out = request.out_dir
    write_sweep_settings(request.base)
    sweep = Sweep(request, member_slugs(request), recorded)
    for model in request.models:
        sweep.refresh(model)
    sweep.save()
    outcome = SweepOutcome(out_dir=out, sweep=sweep.report)
    stop_reason: str | None = None
    for index, model in enumerate(request.models):
        entry = sweep.entry(model)
        if on_model is not None:
            on_model(index, entry)
        if entry.status == "completed":  # a resumed sweep keeps what it finished
            if stop_reason is None:  # ... and renders it if an interrupt or a crash left it unrendered
                outcome.render_error = render_member(request, sweep.run_dir(model)) or outcome.render_error
            continue
        stop_reason = stop_reason or interrupt.stop_reason
        if stop_reason is not None:
            entry.status = "not_run"
            continue
        others = [e.spent for e in sweep.report.models if e.model != model]
        budget, exhausted = remaining_budget(sweep.limits, others)
        if budget is None:
            # the wall clock stops a sweep under the name it stops a run with (budget_stop reads both)
            entry.status, entry.stopReason = "not_run", ("wall_clock" if exhausted == "wallSeconds"
                                                         else f"budget_exhausted:{exhausted}")
            stop_reason = entry.stopReason
            sweep.save()
            continue
        resume = (sweep.run_dir(model) / MANIFEST).exists()
        result = await run(member_request(request, model, entry.slug, budget, resume=resume))
        outcome.runs[model] = result
        outcome.render_error = outcome.render_error or result.render_error
        sweep.refresh(model)
        if result.stop_reason and result.stop_reason not in CONTINUE_AFTER:
            stop_reason = result.stop_reason
        sweep.save()
    sweep.finish(stop_reason)  # a Ctrl-C after the last model started stopped nothing of the sweep
    outcome.render_error = render_sweep_outputs(request, out) or outcome.render_error
    return outcome


def _rendered(render: Callable[[Path], object], path: Path) -> str | None:
    """Run a renderer; the error text when it failed (a renderer's defect must not lose the results)."""
    try:
        render(path)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def render_member(request: SweepRequest, run_dir: Path) -> str | None:
    """A completed model's report.html / .md when missing (its rendering was interrupted or crashed)."""
    if not request.base.render or (run_dir / "report.html").exists() or not (run_dir / "report.json").exists():
        return None
    from harness.rendering import render_all

    return _rendered(render_all, run_dir)


def render_sweep_outputs(request: SweepRequest, out: Path) -> str | None:
    """sweep.html and sweep.md; the error text when rendering failed (sweep.json stays valid)."""
    if not request.base.render:
        return None
    from harness.rendering import render_sweep

    return _rendered(render_sweep, out)
