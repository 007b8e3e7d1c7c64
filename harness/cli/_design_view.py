"""The design review on the console (X-41): a table of the planned comparisons, then each finding with its
fix. Shared by ``harness validate`` and ``harness power --plan`` (and a run's dry run)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from harness.analysis import TITLES, DesignReview, PlannedComparison, boundary_text, format_p

from ._app import plain


def _crosses(c: PlannedComparison) -> str:
    if c.gated:
        return "after the others"
    return "possible" if c.separablePossible else "[bold red]never[/]"


def design_table(review: DesignReview) -> Table:
    """Stage × comparison of the plan's family: n, smallest p, the cut-off it is sized for and whether any
    outcome crosses it, the n a complete difference needs, power (at the cut-off, and at α on its own)."""
    alpha = review.alpha
    table = Table(title=f"design: what each comparison can show (two-sided {TITLES[review.test]}, α = {alpha:g})",
                  title_justify="left")
    for name, justify in (("stage", "left"), ("comparison", "left"), ("n", "right"), ("smallest p", "right"),
                          ("cut-off", "right"), ("crossing", "center"), ("n for a complete difference", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    if review.effect is not None:
        table.add_column(f"power ({review.effect.control:g} vs {review.effect.treatment:g})", justify="right")
        table.add_column(f"alone at α {alpha:g}", justify="right")
        table.add_column(f"n for {review.targetPower:.0%}", justify="right")
    for c in review.comparisons:
        n = str(c.n) if c.n == c.otherN else f"{c.n} vs {c.otherN}"
        cutoff = "—" if c.cutoff is None else f"{c.cutoff:.3g}"
        row = [plain(c.stage), plain(f"{c.group} vs {c.other}"), n, format_p(c.smallestP, alpha), cutoff,
               _crosses(c), "—" if c.nSeparable is None else str(c.nSeparable)]
        if review.effect is not None:
            row += ["—" if c.power is None or c.gated else f"{c.power:.2f}",
                    "—" if c.powerAlone is None else f"{c.powerAlone:.2f}",
                    "not reached" if c.nForPower is None else str(c.nForPower)]
        table.add_row(*row)
    return table


def sequential_table(review: DesignReview) -> Table:
    """Sequential stage × look: repeats, calibrated threshold, type I error by then; the size, power and expected
    repeats in the title column."""
    table = Table(title=f"sequential: cross when p < threshold ({TITLES[review.test]}, α {review.alpha:g})",
                  title_justify="left")
    for name in ("stage", "look", "repeats", "threshold", "type I error by then"):
        table.add_column(name, justify="left" if name == "stage" else "right")
    for r in review.sequential:
        for k, (n, cut, error) in enumerate(zip(r.looks, r.thresholds, r.typeOneError, strict=True), 1):
            table.add_row(plain(r.stage) if k == 1 else "", str(k), str(n), boundary_text(cut, 3),
                          boundary_text(error, 3))
    return table


def print_review(console: Console, review: DesignReview) -> None:
    """The tables (when the plan compares anything, or has a sequential stage), then every finding: ``problem:``
    or ``note:``, and its fix."""
    if review.sequential:
        console.print(sequential_table(review))
    if review.comparisons:
        if review.family is not None:
            console.print(f"family: {plain(review.family.statement)}", soft_wrap=True, highlight=False)
        console.print(design_table(review))
    else:
        console.print("design: the plan makes no comparison (no anomaly stage with both groups of a pair)",
                      markup=False)
    for f in review.findings:
        head = "[bold red]design problem:[/]" if f.problem else "[yellow]design note:[/]"
        console.print(f"{head} {plain(f.statement)}", soft_wrap=True, highlight=False)
        if f.fix:
            console.print(f"  fix: {plain(f.fix)}", soft_wrap=True, highlight=False)
    if not review.findings:
        console.print("design: no problem found", markup=False)
