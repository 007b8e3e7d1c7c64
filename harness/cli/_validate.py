"""``harness validate PLAN``: schema, protocol options and prices, every error by JSON path (X-1, Q-14); then
the design review of a valid plan (X-41), and with ``--strict`` exit 5 on any design problem."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from ._app import EXIT_DESIGN, EXIT_INVALID, app, err_console, plain, print_json, reflow_help

if TYPE_CHECKING:
    from harness.plan import Plan


def _say(console: Console, text: str) -> None:
    """Plain text: plan content may hold brackets that rich would read as markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _report_errors(source: str, errors: list[str], as_json: bool) -> None:
    if as_json:
        print_json({"valid": False, "plan": source, "errors": errors})
    else:
        _say(err_console, f"error: invalid plan {source} ({len(errors)} problem(s)):")
        for line in errors:
            _say(err_console, f"  {line}")
    raise typer.Exit(EXIT_INVALID)


def planned_trials(plan: Plan) -> int:
    """Trials if every group passes every gate (an upper bound: gating and fail-fast only cut)."""
    return sum(len(plan.participants(s)) * s.repeats for s in plan.stages)


def summary_table(plan: Plan) -> Table:
    """Groups × stages; a cell is the repeats of that group in that stage, '—' where it does not take part."""
    table = Table(title=plain(f"{plan.id}: groups × stages (repeats)"), title_justify="left")
    table.add_column("group")
    table.add_column("role")
    table.add_column("protocol", overflow="fold")
    for stage in plan.stages:
        gate = f"\nafter {', '.join(stage.requires)}" if stage.requires else ""
        extra = " (addition)" if stage.addition else ""
        turns = f"\n{len(stage.turns)} turn(s)"
        table.add_column(plain(f"{stage.id}{extra}{turns}{gate}"), justify="center", overflow="fold")
    for group in plan.groups:
        options = " ".join(str(v) for v in group.protocol.options.values())
        cells = []
        for stage in plan.stages:
            takes_part = any(g.id == group.id for g in plan.participants(stage))
            cells.append(str(stage.repeats) if takes_part else "—")
        protocol = group.protocol.key + (f"\n{options}" if options else "")
        table.add_row(plain(group.id), group.role, plain(protocol), *cells)
    return table


@app.command("validate")
@reflow_help
def validate_cmd(
    plan_path: str = typer.Argument(..., metavar="PLAN", help="The experiment plan JSON file."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    strict: bool = typer.Option(False, "--strict", help=f"Exit {EXIT_DESIGN} when the design review finds a "
                                "problem (for CI)."),
) -> None:
    """Validate a plan (exit 2 with every error) and review its design (--strict: exit 5 on a problem).

    Validation: schema, protocol options and prices when budgeted. The design review: what each
    comparison can show at the planned n (smallest p of the plan's test, separable at the plan's alpha, power for
    analysis.effect), repeats at temperature 0, required checks that cannot be exercised, and where a
    sequential stage can first stop; --strict exits 5 on any design problem."""
    from harness.analysis import review_design
    from harness.plan import PlanError, load_plan, price_problems

    from ._design_view import print_review

    try:
        plan, sha256 = load_plan(plan_path)
    except PlanError as exc:
        _report_errors(plan_path, exc.errors, as_json)
        return
    problems = price_problems(plan)
    if problems:
        _report_errors(plan_path, problems, as_json)
    review = review_design(plan)
    failed = strict and review.problems > 0
    if as_json:
        print_json({"valid": True, "plan": plan_path, "id": plan.id, "sha256": sha256,
                    "plannedTrials": planned_trials(plan), "design": review.model_dump(mode="json")})
        if failed:
            raise typer.Exit(EXIT_DESIGN)
        return
    console = Console(emoji=False)
    _say(console, "valid")
    _say(console, f"plan {plan.id}")
    _say(console, f"sha256 {sha256}")
    _say(console, f"model {plan.models.agent} (maintainer {plan.models.maintainer_model})")
    console.print(summary_table(plan))
    limits = {k: v for k, v in plan.budget.model_dump().items() if v is not None}
    caps = ", ".join(f"{k}={v}" for k, v in limits.items())
    _say(console, f"at most {planned_trials(plan)} trial(s); budget {caps}")
    print_review(console, review)
    if failed:
        _say(err_console, f"error: --strict: {review.problems} design problem(s) (exit {EXIT_DESIGN})")
        raise typer.Exit(EXIT_DESIGN)
