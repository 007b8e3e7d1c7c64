"""``harness power``: the repeats per group a comparison needs, exactly (X-41); ``--plan`` reviews a plan."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from harness.analysis import MAX_N, TARGET_POWER, n_for_power, power, review_design, smallest_p
from harness.analysis._stats import ALPHA
from harness.plan import PlanError, load_plan

from ._app import app, fail, print_json, reflow_help
from ._design_view import print_review

LARGEST_N = 1000
"""The largest --max-n: the search enumerates (n + 1)² outcomes at every n up to it."""


def _rows(control: float, treatment: float, alpha: float, around: int, max_n: int) -> list[dict[str, Any]]:
    """Power and smallest p for n from three below ``around`` to three above (within 1 … max_n)."""
    low, high = max(1, around - 3), min(max_n, around + 3)
    return [{"n": n, "power": power(control, treatment, n, n, alpha), "smallestP": smallest_p(n)}
            for n in range(low, high + 1)]


def _check(name: str, value: float, low: float, high: float, inclusive: bool) -> None:
    inside = low <= value <= high if inclusive else low < value < high
    if not inside:
        bounds = f"[{low:g}, {high:g}]" if inclusive else f"({low:g}, {high:g})"
        fail(f"--{name} {value:g}: must be in {bounds}" + (" (a pass rate)" if inclusive else ""))


def _review(plan_path: str, as_json: bool) -> None:
    try:
        plan, _ = load_plan(plan_path)
    except PlanError as exc:
        fail(str(exc))
    review = review_design(plan)
    if as_json:
        print_json({"plan": plan_path, "id": plan.id, "design": review.model_dump(mode="json")})
    else:
        print_review(Console(emoji=False), review)


@app.command("power")
@reflow_help
def power_cmd(
    control: float | None = typer.Option(None, "--control", metavar="P0", help="Pass rate of the control group."),
    treatment: float | None = typer.Option(None, "--treatment", metavar="P1", help="Pass rate of the other group."),
    alpha: float = typer.Option(ALPHA, "--alpha", help="Separable when the two-sided Fisher p < alpha."),
    target: float = typer.Option(TARGET_POWER, "--power", help="The power to reach."),
    max_n: int = typer.Option(MAX_N, "--max-n", help=f"The largest n per group to try (at most {LARGEST_N})."),
    plan_path: str | None = typer.Option(None, "--plan", metavar="PLAN", help="Review this plan's comparisons "
                                         "instead (its analysis.alpha and analysis.effect)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """The n per group at which a two-sided Fisher exact test (p < alpha) separates pass rates P0 and P1 with
    the given power, computed exactly by enumerating every outcome (no normal approximation), and a short
    table of power and smallest attainable p by n around it.

    --plan PLAN prints that plan's design review instead: each planned comparison's smallest p, whether it
    can be separable, the n a complete difference needs and, with analysis.effect, its power."""
    if plan_path is not None:
        _review(plan_path, as_json)
        return
    if control is None or treatment is None:
        fail("give both --control P0 and --treatment P1 (pass rates between 0 and 1), or --plan PLAN")
    _check("control", control, 0.0, 1.0, True)
    _check("treatment", treatment, 0.0, 1.0, True)
    _check("alpha", alpha, 0.0, 1.0, False)
    _check("power", target, 0.0, 1.0, False)
    if not 1 <= max_n <= LARGEST_N:
        fail(f"--max-n {max_n}: must be between 1 and {LARGEST_N}")
    if control == treatment:
        fail(f"--control and --treatment are both {control:g}: there is no difference to find; the test then "
             f"rejects at most alpha ({alpha:g}) of the time at any n, so no n reaches power {target:g}")
    n = n_for_power(control, treatment, alpha, target, max_n)
    rows = _rows(control, treatment, alpha, max_n if n is None else n, max_n)
    if as_json:
        print_json({"control": control, "treatment": treatment, "alpha": alpha, "targetPower": target, "maxN": max_n,
                    "n": n, "table": rows})
        return
    console = Console(emoji=False)
    said = (f"n = {n} per group reaches power {target:g}" if n is not None
            else f"no n up to {max_n} per group reaches power {target:g} (raise --max-n, or expect a larger effect)")
    console.print(f"control {control:g} vs treatment {treatment:g}, two-sided Fisher exact, α = {alpha:g}: {said}",
                  markup=False, soft_wrap=True)
    table = Table(title="exact power by n", title_justify="left")
    for name in ("n per group", "power", "smallest p"):
        table.add_column(name, justify="right")
    for row in rows:
        mark = " ←" if row["n"] == n else ""
        table.add_row(f"{row['n']}{mark}", f"{row['power']:.3f}", f"{row['smallestP']:.3g}")
    console.print(table)
    console.print("exact power is not monotone in n (a saw-tooth): an n just above the answer can fall a little "
                  "short again", markup=False, soft_wrap=True)
