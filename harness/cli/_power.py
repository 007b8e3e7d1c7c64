"""``harness power``: the repeats per group a comparison needs, exactly (X-41); ``--looks`` sizes a sequential
design; ``--plan`` reviews a plan."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

import typer
from rich.console import Console
from rich.table import Table

from ._app import app, fail, print_json, reflow_help

if TYPE_CHECKING:
    from harness.stats import Spending, TestName

ALPHA, TARGET_POWER, MAX_N = 0.05, 0.8, 200
"""The defaults of --alpha, --power and --max-n: ``harness.stats``' (checked in tests), written here so that
``harness --help`` does not import numpy and the statistics to show them."""

LARGEST_N = 1000
"""The largest --max-n: the search enumerates (n + 1)² outcomes at every n up to it."""
LARGEST_FAMILY = 10
"""The largest --comparisons: beyond two or three the star is held by Bonferroni, and ten covers every plan."""
LARGEST_LOOK = 100
"""The largest look of --looks: every outcome of every look is enumerated."""


def _rows(control: float, treatment: float, alpha: float, around: int, max_n: int, test: TestName
          ) -> list[dict[str, Any]]:
    """Power and smallest p for n from three below ``around`` to three above (within 1 … max_n)."""
    from harness.analysis import power, smallest_p

    low, high = max(1, around - 3), min(max_n, around + 3)
    return [{"n": n, "power": power(control, treatment, n, n, alpha, test), "smallestP": smallest_p(n, n, test)}
            for n in range(low, high + 1)]


def _reached(n: int | None, target: float, max_n: int) -> str:
    """``n = 11 per group reaches power 0.8`` / that none up to ``max_n`` does."""
    return (f"n = {n} per group reaches power {target:g}" if n is not None
            else f"no n up to {max_n} per group reaches power {target:g} (raise --max-n, or expect a larger effect)")


def _family(control: float, treatment: float, alpha: float, target: float, max_n: int, test: TestName,
            comparisons: int, as_json: bool) -> None:
    """K comparisons against one control held at α together: the n per group for the target power at the family's
    first-step cut-off, and a table around it with the cut-off, the family-wise size and the power alone."""
    from harness.analysis import TITLES, power, smallest_p
    from harness.stats import star_n_for_power, star_step

    n = star_n_for_power(control, treatment, comparisons, alpha, target, max_n, test)
    around = max_n if n is None else n
    rows = []
    for m in range(max(1, around - 3), min(max_n, around + 3) + 1):
        step = star_step(m, comparisons, alpha, test)
        rows.append({"n": m, "cutoff": step.cutoff, "familySize": step.size, "exact": step.exact,
                     "power": power(control, treatment, m, m, step.cutoff, test),
                     "powerAlone": power(control, treatment, m, m, alpha, test), "smallestP": smallest_p(m, m, test)})
    if as_json:
        print_json({"control": control, "treatment": treatment, "alpha": alpha, "test": test, "targetPower": target,
                    "comparisons": comparisons, "maxN": max_n, "n": n, "table": rows})
        return
    console = Console(emoji=False)
    said = _reached(n, target, max_n)
    console.print(f"control {control:g} vs treatment {treatment:g}, two-sided {TITLES[test]} exact, {comparisons} "
                  f"comparisons against one control held at α = {alpha:g} together (exact closed test): {said}",
                  markup=False, soft_wrap=True)
    table = Table(title="exact power by n at the family's first-step cut-off", title_justify="left")
    for name in ("n per group", "cut-off", "family-wise size", "power", "alone at α", "smallest p"):
        table.add_column(name, justify="right")
    for row in rows:
        mark = " ←" if row["n"] == n else ""
        size = f"{row['familySize']:.4f}" + ("" if row["exact"] else " (at most)")
        table.add_row(f"{row['n']}{mark}", f"{row['cutoff']:.4g}", size, f"{row['power']:.3f}",
                      f"{row['powerAlone']:.3f}", f"{row['smallestP']:.3g}")
    console.print(table)
    console.print("a comparison whose p is below the cut-off is separable whatever the other comparisons show; the "
                  "family-wise size is the exact chance that any of them crosses it when no group differs, maximised "
                  "over the common pass rate; the power is that of crossing the cut-off with the other groups at the "
                  "control's rate, a lower bound: the closed test can also call it separable after another comparison "
                  "is", markup=False, soft_wrap=True)


def _check(name: str, value: float, low: float, high: float, inclusive: bool) -> None:
    inside = low <= value <= high if inclusive else low < value < high
    if not inside:
        bounds = f"[{low:g}, {high:g}]" if inclusive else f"({low:g}, {high:g})"
        fail(f"--{name} {value:g}: must be in {bounds}" + (" (a pass rate)" if inclusive else ""))


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        fail(f"--{name} {value!r}: expected one of {', '.join(allowed)}")
    return value


def _looks(text: str) -> list[int]:
    try:
        looks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        fail(f"--looks {text!r}: expected repeats per group at each look, e.g. 4,8,12,16,20")
    if not looks or looks[0] < 1 or any(b <= a for a, b in zip(looks, looks[1:], strict=False)):
        fail(f"--looks {text!r}: the looks must be at least 1 and ascend strictly, e.g. 4,8,12,16,20")
    if looks[-1] > LARGEST_LOOK:
        fail(f"--looks {text!r}: the last look is at most {LARGEST_LOOK} repeats per group")
    return looks


def _review(plan_path: str, as_json: bool, test: str | None) -> None:
    from harness.analysis import review_design
    from harness.plan import PlanError, load_plan

    from ._design_view import print_review

    try:
        plan, _ = load_plan(plan_path)
    except PlanError as exc:
        fail(str(exc))
    if test is not None:  # the plan's analysis with another test, as if its analysis.test said so
        plan = plan.model_copy(update={"analysis": plan.analysis.model_copy(update={"test": test})})
    review = review_design(plan)
    if as_json:
        print_json({"plan": plan_path, "id": plan.id, "design": review.model_dump(mode="json")})
    else:
        print_review(Console(emoji=False), review)


def _sequential(control: float, treatment: float, alpha: float, test: TestName, looks: list[int], spending: Spending,
                as_json: bool, comparisons: int = 1) -> None:
    """The design of ``looks`` calibrated for ``comparisons`` comparisons against one control together, and its
    power at P0 (the control) vs P1 (every other group): the chance that every comparison crosses at one look."""
    from harness.analysis import TITLES, boundary_text, power, size_text
    from harness.stats import against_one_control, calibrated, operating

    figures = calibrated(tuple(looks), alpha, spending, test, against_one_control(comparisons))
    chance, expected = operating(figures, looks, control, treatment)
    fixed = power(control, treatment, looks[-1], looks[-1], alpha, test)
    calibration: Literal["exact", "bonferroni"] = "exact" if figures.exact else "bonferroni"
    if as_json:
        print_json({"control": control, "treatment": treatment, "alpha": alpha, "test": test, "looks": looks,
                    "spending": spending, "comparisons": comparisons, "calibration": calibration,
                    "thresholds": figures.thresholds, "typeOneError": figures.cumulative, "size": figures.size,
                    "power": chance, "expectedRepeats": expected, "fixedPower": fixed})
        return
    console = Console(emoji=False)
    against = "" if comparisons == 1 else f", {comparisons} comparisons against one control calibrated together"
    stop = "exact power" if comparisons == 1 else "exact chance that all cross at one look (a stop)"
    console.print(f"control {control:g} vs treatment {treatment:g}, two-sided {TITLES[test]}, looks at "
                  f"{', '.join(map(str, looks))} repeats per group, {spending} spending of α = {alpha:g}{against}: "
                  f"{stop} {chance:.3f}, {size_text(figures.size, comparisons, calibration)}, {expected:.1f} repeats "
                  f"per group on average (a fixed design of {looks[-1]}: power {fixed:.3f}"
                  + (" per comparison)" if comparisons > 1 else ")"), markup=False, soft_wrap=True)
    table = Table(title="calibrated thresholds (cross when p < threshold)", title_justify="left")
    for name in ("look", "repeats", "threshold", "type I error by then"):
        table.add_column(name, justify="right")
    for k, (n, cut, error) in enumerate(zip(looks, figures.thresholds, figures.cumulative, strict=True), 1):
        table.add_row(str(k), str(n), boundary_text(cut, 3), boundary_text(error, 3))
    console.print(table)
    any_of = "a crossing" if comparisons == 1 else "any comparison crossing"
    console.print(f"the type I error is the exact chance of {any_of} by that look when the groups do not differ, "
                  "maximised over their common pass rate; a threshold lies halfway between the largest p that "
                  "crosses and the smallest that does not, and one above α is still valid: it is a p-value cut-off of "
                  "a discrete test, and what is held to α is that chance", markup=False, soft_wrap=True)


@app.command("power")
@reflow_help
def power_cmd(
    control: float | None = typer.Option(None, "--control", metavar="P0", help="Pass rate of the control group."),
    treatment: float | None = typer.Option(None, "--treatment", metavar="P1", help="Pass rate of the other group."),
    alpha: float = typer.Option(ALPHA, "--alpha", help="Separable when the test's two-sided p < alpha."),
    target: float = typer.Option(TARGET_POWER, "--power", help="The power to reach."),
    max_n: int = typer.Option(MAX_N, "--max-n", help=f"The largest n per group to try (at most {LARGEST_N})."),
    test: str | None = typer.Option(None, "--test", metavar="TEST", help="boschloo (the default) or fisher; with "
                                    "--plan: instead of the plan's analysis.test."),
    looks: str | None = typer.Option(None, "--looks", metavar="N1,N2,…", help="Size a sequential design with looks "
                                     "after these repeats per group (the last is its repeats), e.g. 4,8,12,16,20."),
    spending: str = typer.Option("obrien-fleming", "--spending", metavar="FUNCTION",
                                 help="With --looks: obrien-fleming (the default) or pocock α spending."),
    comparisons: int = typer.Option(1, "--comparisons", metavar="K", help="The comparisons against one control held "
                                    "at alpha together (e.g. 2: B vs A and C vs A): the n per group for the adjusted "
                                    "test's power."),
    plan_path: str | None = typer.Option(None, "--plan", metavar="PLAN", help="Review this plan's comparisons "
                                         "and sequential stages instead (its analysis: test, alpha, effect, "
                                         "family)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """The n per group at which a two-sided exact test (p < alpha) separates pass rates P0 and P1 with the
    given power, computed exactly by enumerating every outcome (no normal approximation), and a short table
    of power and smallest attainable p by n around it.

    The test is Boschloo's unconditional test by default (with equal groups never less powerful than
    Fisher's: 0.9 vs 0.3 needs n = 10 per group for 80% power, Fisher's test 12); --test fisher uses
    Fisher's exact test.

    --comparisons K sizes K comparisons against one control held at alpha together (the family's exact closed
    test): the n per group at which one of them crosses the family's first-step cut-off with the given power,
    with the cut-off and the family-wise size by n (0.9 vs 0.3: 10 per group alone, 11 for two comparisons).

    --looks 4,8,12,16,20 [--spending pocock] sizes a sequential design instead: the thresholds calibrated
    exactly at each look, the design's exact size, its exact power at P0 vs P1 and the repeats per group it
    runs on average.

    --plan PLAN prints that plan's design review instead: its family's first-step cut-off and family-wise size,
    each comparison's smallest p, whether it can cross the cut-off, the n a complete difference needs and, with
    analysis.effect, its power (and alone at alpha); each sequential stage's calibrated design, exact size, power
    and expected repeats."""
    from harness.analysis import SPENDING, TESTS, TITLES, n_for_power

    chosen = None if test is None else cast("TestName", _choice("test", test, TESTS))
    if plan_path is not None:
        _review(plan_path, as_json, chosen)
        return
    if control is None or treatment is None:
        fail("give both --control P0 and --treatment P1 (pass rates between 0 and 1), or --plan PLAN")
    _check("control", control, 0.0, 1.0, True)
    _check("treatment", treatment, 0.0, 1.0, True)
    _check("alpha", alpha, 0.0, 1.0, False)
    _check("power", target, 0.0, 1.0, False)
    test_name: TestName = chosen or "boschloo"
    if not 1 <= comparisons <= LARGEST_FAMILY:
        fail(f"--comparisons {comparisons}: must be between 1 and {LARGEST_FAMILY}")
    if looks is not None:
        _sequential(control, treatment, alpha, test_name, _looks(looks),
                    cast("Spending", _choice("spending", spending, SPENDING)), as_json, comparisons)
        return
    if not 1 <= max_n <= LARGEST_N:
        fail(f"--max-n {max_n}: must be between 1 and {LARGEST_N}")
    if control == treatment:
        fail(f"--control and --treatment are both {control:g}: there is no difference to find; the test then "
             f"rejects at most alpha ({alpha:g}) of the time at any n, so no n reaches power {target:g}")
    if comparisons > 1:
        _family(control, treatment, alpha, target, max_n, test_name, comparisons, as_json)
        return
    n = n_for_power(control, treatment, alpha, target, max_n, test_name)
    rows = _rows(control, treatment, alpha, max_n if n is None else n, max_n, test_name)
    if as_json:
        print_json({"control": control, "treatment": treatment, "alpha": alpha, "test": test_name,
                    "targetPower": target, "maxN": max_n, "n": n, "table": rows})
        return
    console = Console(emoji=False)
    said = _reached(n, target, max_n)
    console.print(f"control {control:g} vs treatment {treatment:g}, two-sided {TITLES[test_name]} exact, "
                  f"α = {alpha:g}: {said}", markup=False, soft_wrap=True)
    table = Table(title=f"exact power by n ({TITLES[test_name]})", title_justify="left")
    for name in ("n per group", "power", "smallest p"):
        table.add_column(name, justify="right")
    for row in rows:
        mark = " ←" if row["n"] == n else ""
        table.add_row(f"{row['n']}{mark}", f"{row['power']:.3f}", f"{row['smallestP']:.3g}")
    console.print(table)
    console.print("exact power is not monotone in n (a saw-tooth): an n just above the answer can fall a little "
                  "short again", markup=False, soft_wrap=True)
