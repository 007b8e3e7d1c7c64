"""``harness rescore RUN_DIR [--plan PLAN] [--test T] [--family F] [--family-method M]``: re-judge a
recorded run with another plan's checks, without any model call (``workflows._rescore``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ._app import EXIT_INVALID, EXIT_OK, EXIT_UNMET, app, err_console, fail, reflow_help


@app.command("rescore")
@reflow_help
def rescore_cmd(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory written by `harness run`.")],
    plan_path: Annotated[str | None, typer.Option(
        "--plan", metavar="PLAN", help="The plan whose checks and findings rules judge the recorded trials; "
        "default: the plan the run ran.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Where the new report goes; default RUN_DIR/rescored/<plan sha>-<UTC time>/.")] = None,
    test: Annotated[str | None, typer.Option(
        "--test", metavar="TEST", help="boschloo or fisher: the test of the new p-values; default: the plan's "
        "analysis.test when --plan sets one, else the test of the report re-scored (fisher for a report written "
        "before the test was a choice).")] = None,
    family: Annotated[str | None, typer.Option(
        "--family", metavar="FAMILY", help="findings or none: the comparisons held at alpha together (findings: "
        "every comparison the findings rules can claim) or none (each at alpha on its own, said so: not adjusted "
        "for multiple comparisons); default: the plan's analysis.family when --plan sets one, else the recorded "
        "plan's (findings for a run recorded before the family existed).")] = None,
    family_method: Annotated[str | None, typer.Option(
        "--family-method", metavar="METHOD", help="exact or holm: how the family is held; default: the plan's "
        "analysis.familyMethod when --plan sets one, else the recorded plan's (exact before it existed).")] = None,
) -> None:
    """Re-judge a finished run's recorded trials with another plan's checks, without calling any model.

    Every check and finding is evaluated again from what RUN_DIR recorded (answers, tool calls,
    window memories, snapshots, the session store), and stage outcomes follow the plan's gating:
    re-running a plan after changing an expected number, a check or a findings rule costs nothing.
    The new report.json, metrics.duckdb, report.html and report.md go next to the old ones, in
    RUN_DIR/rescored/<plan sha>-<time>/, with rescore.json listing what changed; RUN_DIR itself is
    never modified.

    The plan must be one that would have run the very same trials: the same agent, sampling,
    maintenance and per-run limits, groups with the same protocols, stages with the same repeats,
    gating and turn inputs. Only checks, findings rules, labels, budget caps and stop conditions may
    differ; any other difference is refused (exit 2) and named by its JSON path.

    For a sweep, rescore each model's run: harness rescore D/<model-slug> --plan PLAN.

    The plan's expect list (GROUP:STAGE=STATUS) is checked against the new outcomes, as harness run
    checks it.

    The p-values keep the test of the report re-scored unless asked: --test boschloo re-states a report
    written with Fisher's test (before the test was a choice) with Boschloo's. The family of comparisons
    held at alpha together is the recorded plan's unless asked: a run recorded before the family existed
    is re-stated with the findings family (exact); --family none re-states it without adjustment. The
    new report's first caveat says which test, family and method it used.

    While a `harness run` is running in RUN_DIR, this is refused (exit 2, naming the process): the
    run is still appending trials; rescore it once the run is over.

    Exit codes: 0 re-scored; 2 invalid input (not a run directory, an unreadable plan, a plan that
    differs from the recorded one, a run directory in use, a folder that cannot be written); 4
    re-scored, but an expectation of the plan is unmet (a run that had stopped early exits 0: its
    verdicts were never final); 1 an internal defect of the harness.
    """
    from harness.plan import PlanError, load_plan
    from harness.results import is_sweep, read_sweep
    from harness.runner import StorageError, shared, storage_problem
    from harness.stats import FAMILY_METHODS, TESTS
    from harness.workflows import FAMILIES, rescore
    from protocols import InvalidInput

    from ._run_gate import show_expectations
    from ._run_view import console, where

    if test is not None and test not in TESTS:
        fail(f"--test {test!r}: expected one of {', '.join(TESTS)}")
    if family is not None and family not in FAMILIES:
        fail(f"--family {family!r}: expected one of {', '.join(FAMILIES)}")
    if family_method is not None and family_method not in FAMILY_METHODS:
        fail(f"--family-method {family_method!r}: expected one of {', '.join(FAMILY_METHODS)}")

    if is_sweep(run_dir):
        slugs = ", ".join(str(run_dir / m.slug) for m in read_sweep(run_dir).models)
        fail(f"{run_dir} is a sweep: rescore each model's run directory ({slugs})")
    plan, sha = None, None
    if plan_path is not None:
        try:
            plan, sha = load_plan(plan_path)
        except PlanError as exc:
            err_console.print(f"error: invalid plan {plan_path} ({len(exc.errors)} problem(s)):", markup=False)
            for line in exc.errors:
                err_console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_INVALID) from None
    try:
        with shared(run_dir):  # never while a run writes RUN_DIR
            outcome = rescore(run_dir, plan, sha, plan_path, out, test=test, family=family,
                              family_method=family_method)
    except InvalidInput as exc:  # refused, not a run directory, or in use: the caller's mistake, named
        err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from None
    except (OSError, StorageError) as exc:  # a read-only or full disk where the new report goes
        if not storage_problem(exc):
            raise
        fail(str(exc) if isinstance(exc, StorageError) else f"cannot write the new report: {exc}")
    table = Table(title=f"re-scored {run_dir}: stages whose outcome changed", title_justify="left")
    for column in ("group", "stage", "before", "after"):
        table.add_column(column)
    for change in outcome.changes:
        table.add_row(change["group"], change["stage"], str(change["before"]), change["after"])
    if outcome.changes:
        console.print(table)
    else:
        console.print("no stage outcome changed", markup=False)
    for finding in outcome.report.findings:
        console.print(f"finding {finding.rule}: {finding.statement}", markup=False, soft_wrap=True)
    if outcome.report.findings and outcome.report.family is not None:
        console.print(outcome.report.family.line(), markup=False, soft_wrap=True)
    console.print(f"{outcome.trials_changed} trial verdict(s) changed; no model was called", markup=False)
    where(outcome.out_dir, "report", outcome.render_error)
    show_expectations(outcome.report.expectations)
    missed = any(not e.met for e in outcome.report.expectations)
    raise typer.Exit(EXIT_UNMET if missed and outcome.report.status == "completed" else EXIT_OK)
