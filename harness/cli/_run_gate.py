"""``harness run`` as a CI gate and with quick overrides: ``--expect``, ``--junit``, ``--strict``,
``--temperature``, ``--seed``, ``--repeats``, ``--reasoning-effort``. What the options do is here
(their help texts are in ``_app``, light for ``--help``); ``_run`` only passes them.

Exit codes, in order of precedence: 2 invalid input (nothing ran), 5 ``--strict`` and the design
review of the plan as it would run (overrides applied) found a problem (checked after every exit-2
check and before any model call or run directory: nothing ran; a dry run prints the review and then
exits 5), 1 a harness defect, 3 stopped early, 6 ran to its end but no trial reached a verdict (every
group held back by the preflight, every call refused or errored: a sentence says which), 4 an
expectation unmet, 0 done. A run that stopped early exits 3 even when an expectation is also unmet:
its verdicts are not final (``--resume`` finishes it, and the finished run exits 0 or 4); the unmet
expectations are still listed and in report.json.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from harness.analysis import DesignReview, review_design
from harness.models import REASONING_EFFORTS
from harness.plan import Expectation, Plan
from harness.rendering import write_junit
from harness.results import ExpectationResult, Override, Report, ReportError, read_report, read_sweep
from harness.results._expect import describe, parse_cli_expectations, unmet
from harness.runner import ResumeRefused, RunDir, RunOutcome
from harness.runner._overrides import OverrideError, OverrideSpec, apply_overrides, parse_repeats, resume_overrides
from harness.workflows import SweepOutcome

from ._app import (
    EXIT_DESIGN,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_NO_VERDICT,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_UNMET,
    ReasoningChoice,
    err_console,
    fail,
)
from ._design_view import print_review
from ._run_view import console

assert tuple(c.value for c in ReasoningChoice) == REASONING_EFFORTS


@dataclass
class Gate:
    """What the gate options decided before the run: the plan to run and what to record."""

    plan: Plan
    expect: list[Expectation] = field(default_factory=list)
    spec: OverrideSpec = field(default_factory=OverrideSpec)
    overrides: list[Override] = field(default_factory=list)
    junit: Path | None = None


def _recorded_overrides(resume: Path) -> dict[str, object] | None:
    try:
        return read_sweep(resume).overrides
    except ReportError:
        pass
    try:
        return RunDir(resume).manifest().get("overrides")
    except ResumeRefused as exc:
        fail(str(exc))


def prepare(plan: Plan, expect: list[str] | None, junit: Path | None, temperature: float | None, seed: int | None,
            repeats: list[str] | None, resume: Path | None, reasoning_effort: Enum | str | None = None) -> Gate:
    """Overrides applied (a resume without any reuses the recorded ones) and ``--expect`` checked
    against the plan; every problem is exit 2, naming the option."""
    try:
        spec = OverrideSpec(temperature=temperature, seed=seed, repeats=parse_repeats(repeats),
                            reasoning_effort=getattr(reasoning_effort, "value", reasoning_effort))
        if resume is not None:
            spec = resume_overrides(_recorded_overrides(resume), spec, str(resume))
        plan, overrides = apply_overrides(plan, spec)
    except (OverrideError, ResumeRefused) as exc:
        fail(str(exc))
    expectations, problems = parse_cli_expectations(plan, expect or [])
    if problems:
        fail("; ".join(problems))
    if junit is not None:
        _check_writable(junit)
    return Gate(plan=plan, expect=expectations, spec=spec, overrides=overrides, junit=junit)


def design_gate(plan: Plan, strict: bool, dry: bool) -> DesignReview:
    """The design review of the plan as it would run; with ``--strict`` a problem exits 5 here, before any
    model call or run directory (a dry run shows its review first: ``dry_code``)."""
    review = review_design(plan)
    if strict and review.problems and not dry:
        print_review(console, review)
        fail(f"--strict: {review.problems} design problem(s); nothing ran", EXIT_DESIGN)
    return review


def dry_code(review: DesignReview, strict: bool) -> int:
    """A dry run's exit code: 5 with ``--strict`` and a design problem, else 0."""
    if strict and review.problems:
        err_console.print(f"error: --strict: {review.problems} design problem(s) (exit {EXIT_DESIGN})",
                          markup=False, soft_wrap=True)
        return EXIT_DESIGN
    return EXIT_OK


def _check_writable(path: Path) -> None:
    """--junit FILE must be writable before anything runs, not found unwritable after the spend."""
    if path.is_dir():
        fail(f"--junit {path}: is a directory; name a file, e.g. {path / 'junit.xml'}")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        fail(f"--junit {path}: {parent} is not a writable directory")


def _write_junit(path: Path, suites: list[tuple[str, Report]]) -> bool:
    try:
        write_junit(path, suites)
    except OSError as exc:
        err_console.print(f"error: --junit {path} could not be written: {exc.strerror or exc}", markup=False,
                          soft_wrap=True)
        return False
    console.print(f"junit: {path}", markup=False, soft_wrap=True)
    return True


def show_expectations(results: list[ExpectationResult], who: str = "") -> None:
    if not results:
        return
    missed = unmet(results)
    head = f"expectations{who}: " + (f"{len(missed)} of {len(results)} unmet" if missed else f"all {len(results)} met")
    console.print(head, markup=False, soft_wrap=True, style="bold red" if missed else "bold green")
    for r in results:
        console.print(f"  {'unmet' if not r.met else 'met'} {describe(r)}", markup=False, soft_wrap=True)


def _code(stopped: bool, missed: bool, verdictless: bool = False) -> int:
    if stopped:
        return EXIT_STOPPED
    if verdictless:
        return EXIT_NO_VERDICT
    return EXIT_UNMET if missed else EXIT_OK


def no_verdict(report: Report) -> str | None:
    """Why no trial of the run reached a verdict (passed or failed), in one sentence; None when one did."""
    trials = [(g.id, t) for g in report.groups for s in g.stages for t in s.trials]
    if any(t.status in ("passed", "failed") for _, t in trials):
        return None
    held = sorted({p.group for p in report.preflight if not p.sent})
    rules = sorted({p.rule or p.verdict for p in report.preflight if not p.sent})
    kinds: dict[str, int] = {}
    for entry in report.infrastructure:
        for kind, n in entry.errorKinds.items():
            kinds[kind] = kinds.get(kind, 0) + n
    parts = []
    if held:
        parts.append(f"the preflight held back {', '.join(held)}: the provider rejects their requests "
                     f"({', '.join(rules)}; --send-rejected sends them)")
    errors = sum(1 for _, t in trials if t.status == "error")
    if errors:
        parts.append(f"{errors} trial(s) ended in an error ("
                     + (", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())) or "see report.json") + ")")
    skipped = sum(1 for g, t in trials if t.status == "skipped" and g not in held)
    if skipped:
        parts.append(f"{skipped} other trial(s) were skipped")
    if not trials:
        parts.append("no trial ran (nothing selected)")
    return "no trial reached a verdict: " + "; ".join(parts)


def finish_run(outcome: RunOutcome, junit: Path | None) -> int:
    """Show the gate's result, write the JUnit file, and return the exit code (see the module)."""
    results = outcome.report.expectations
    show_expectations(results)
    if junit is not None and not _write_junit(junit, [(outcome.report.plan.id, outcome.report)]):
        return EXIT_INVALID
    if outcome.render_interrupted and outcome.stop_reason is None:
        return EXIT_INTERRUPTED
    why = no_verdict(outcome.report) if outcome.stop_reason is None else None
    if why is not None:
        err_console.print(f"error: {why} (exit {EXIT_NO_VERDICT})", markup=False, soft_wrap=True)
    return _code(outcome.stop_reason is not None, bool(unmet(results)), why is not None)


def finish_sweep(outcome: SweepOutcome, junit: Path | None) -> int:
    """Every model must meet every expectation: one model missing one makes the sweep exit 4; one model
    whose run reached no verdict makes it exit 6."""
    missed = False
    reports = []
    for entry in outcome.sweep.models:
        show_expectations(entry.expectations, f" of {entry.model}")
        missed = missed or bool(unmet(entry.expectations))
        try:
            reports.append((entry.model, read_report(outcome.out_dir / entry.slug / "report.json")))
        except ReportError:
            continue  # a model that did not run has no trials
    if junit is not None and not _write_junit(junit, reports):
        return EXIT_INVALID
    stopped = outcome.sweep.status != "completed"
    empty = [(model, why) for model, report in reports if (why := no_verdict(report)) is not None]
    for model, why in empty if not stopped else []:
        err_console.print(f"error: {model}: {why} (exit {EXIT_NO_VERDICT})", markup=False, soft_wrap=True)
    return _code(stopped, missed, bool(empty))
