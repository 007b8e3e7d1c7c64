"""``harness run PLAN --model M1 --model M2 …``: a model sweep from the command line (``runner._sweep``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from harness.runner import ParamsRefused, PriceUnknown, ResumeRefused, RunOutcome, RunRequest, budget_stop, execute
from harness.workflows import SweepOutcome, SweepRequest, execute_sweep, prepare_sweep, sweep_errors
from harness.workflows._sweep import check_sweep_resume, member_request

from ._app import fail
from ._design_view import print_review
from ._run_gate import design_gate, dry_code, finish_sweep
from ._run_view import Progress, budget_text, console, continue_hint, dry_run, guarded, price_refused, summary, where

_COLOURS = {"passed": "green", "failed": "red", "inconclusive": "yellow"}


def run_sweep(base: RunRequest, models: list[str], maintainer: str | None, resume: bool, dry: bool,
              junit: Path | None = None, strict: bool = False) -> int:
    request = SweepRequest(base=base, models=models, maintainer=maintainer, resume=resume)
    try:
        if resume:
            recorded = check_sweep_resume(request)
            request.models = [m.model for m in recorded.models]
        errors = sweep_errors(request)
        if errors:
            fail("; ".join(errors))
        tables = prepare_sweep(request)
    except (ResumeRefused, ParamsRefused) as exc:
        fail(str(exc))
    except PriceUnknown as exc:
        return price_refused(exc)
    review = design_gate(base.plan, strict, dry)  # one plan for every model: one review
    if dry:
        console.print(f"sweep: {len(request.models)} models one after another into {request.out_dir}/<model>/, one "
                      f"shared budget over all models: {budget_text(base)}", markup=False, soft_wrap=True)
        for model in request.models:
            console.print(f"[bold]model {escape(model)}[/]")
            dry_run(member_request(request, model, "-"), tables[model])
        print_review(console, review)
        return dry_code(review, strict)
    return _execute(request, junit)


def _on_model(request: SweepRequest) -> Any:
    total = len(request.models)

    def show(index: int, entry: Any) -> None:
        kept = " (completed earlier: kept)" if entry.status == "completed" else ""
        console.print(f"[bold]model {index + 1}/{total}: {entry.model}[/] → {request.out_dir / entry.slug}{kept}",
                      soft_wrap=True)

    return show


async def _member(request: RunRequest) -> RunOutcome:
    progress = Progress(request)
    with progress:
        outcome = await execute(request, **progress.hooks())
        progress.stop_reason = outcome.stop_reason  # the last progress line says the run stopped
    summary(outcome, hint=False)  # the sweep says how to continue the sweep
    return outcome


def _execute(request: SweepRequest, junit: Path | None) -> int:
    outcome = guarded(lambda: asyncio.run(execute_sweep(request, run_member=_member, on_model=_on_model(request))),
                      request.out_dir, request.base.plan_path)
    if isinstance(outcome, int):
        return outcome
    sweep_summary(outcome)
    return finish_sweep(outcome, junit)


def sweep_summary(outcome: SweepOutcome) -> None:
    sweep = outcome.sweep
    models = [m.model for m in sweep.models]
    table = Table(title=f"sweep {sweep.plan.id}: {sweep.status}" + (f" ({sweep.stopReason})" if sweep.stopReason
                                                                     else ""), title_justify="left")
    table.add_column("group")
    table.add_column("stage")
    for m in models:
        table.add_column(m, overflow="fold")
    cells = {(c.model, c.group, c.stage): c for c in sweep.table}
    for group in sweep.groups:
        for stage in sweep.stages:
            if not any((m, group, stage) in cells for m in models):
                continue
            row = []
            for m in models:
                c = cells.get((m, group, stage))
                colour = _COLOURS.get(c.status, "grey50") if c else "grey50"
                row.append("—" if c is None else f"[{colour}]{c.status}[/] {c.passes}/{c.n}")
            table.add_row(group, stage, *row)
    console.print(table)
    for finding in sweep.findings:
        console.print(f"[bold]finding[/] {finding.rule}: {finding.statement}", soft_wrap=True, highlight=False)
    spent = sweep.budget.spent
    cached = f" ({spent.cachedResponses} responses from the cache, not counted)" if spent.cachedResponses else ""
    usd = "USD unknown (a model's price is unknown)" if spent.usd is None else f"${spent.usd:.4f}"
    console.print(f"sweep spent {usd}, {spent.llmCalls} model calls{cached}, "
                  f"{spent.inputTokens + spent.outputTokens:,} tokens", markup=False)
    where(outcome.out_dir, "sweep", outcome.render_error)
    if sweep.status != "completed":
        continue_hint(sweep.plan.path, outcome.out_dir, budget_stop(
            sweep.stopReason, sweep.budget.limits.model_dump(), sweep.budget.spent.model_dump(), "the sweep's shared"))
