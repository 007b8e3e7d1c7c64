"""Every table up to 15 per group (18,225 tables): ``harness.stats.p_grid`` (Boschloo) against
``scipy.stats.boschloo_exact``, which reads the groups from the table's columns. The grid's p is a certified
upper bound of the maximum over the common pass rate, so it is never below scipy's (which maximises by
search) by more than rounding, and above it by at most a relative 1e-6, except where scipy's search misses
the peak: a table above that is checked against an independent maximum (the region's probability on
200,001 rates, then a bounded search around the best) and counted as scipy's miss when the grid is within
1e-6 of that maximum and not below it. Prints the largest differences and exits 1 on a table outside those
bounds. Takes some minutes (scipy's search, table by table).

    .venv/bin/python scripts/boschloo_vs_scipy.py [--max-n 15]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import binom, boschloo_exact, hypergeom

from harness.stats import p_grid


def _maximum(x_a: int, n_a: int, x_b: int, n_b: int, alternative: str) -> float:
    """The one-sided p's maximum over the common rate, computed apart from the harness: scipy's statistic and
    tie rule, the region's binomial probability on a dense grid, refined by a bounded search."""
    a, b = np.arange(n_a + 1)[:, None], np.arange(n_b + 1)[None, :]
    stat = hypergeom.cdf(a, n_a + n_b, a + b, n_a) if alternative == "less" else hypergeom.cdf(b, n_a + n_b, a + b, n_b)
    region = stat <= stat[x_a, x_b] * (1 + 1e-13)

    def chance(rate: float) -> float:
        return float(np.sum(np.outer(binom.pmf(a[:, 0], n_a, rate), binom.pmf(b[0], n_b, rate)) * region))

    rates = np.linspace(0.0, 1.0, 200_001)
    dense = np.einsum("ij,ri,rj->r", region, binom.pmf(a[:, 0][None, :], n_a, rates[:, None]),
                      binom.pmf(b[0][None, :], n_b, rates[:, None]))
    k = int(dense.argmax())
    found = minimize_scalar(lambda r: -chance(r), bounds=(rates[max(k - 1, 0)], rates[min(k + 1, len(rates) - 1)]),
                            method="bounded", options={"xatol": 1e-14})
    return max(float(dense[k]), -float(found.fun))


def _two_sided(x_a: int, n_a: int, x_b: int, n_b: int) -> float:
    return min(1.0, 2 * min(_maximum(x_a, n_a, x_b, n_b, "less"), _maximum(x_a, n_a, x_b, n_b, "greater")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=15)
    args = parser.parse_args()
    worst_above = worst_below = 0.0
    bad: list[dict[str, object]] = []
    missed: list[dict[str, object]] = []
    tables = 0
    for n_a in range(1, args.max_n + 1):
        for n_b in range(1, args.max_n + 1):
            grid = p_grid(n_a, n_b)
            for x_a in range(n_a + 1):
                for x_b in range(n_b + 1):
                    reference = float(boschloo_exact([[x_a, x_b], [n_a - x_a, n_b - x_b]]).pvalue)
                    relative = (float(grid[x_a, x_b]) - reference) / reference
                    worst_above, worst_below = max(worst_above, relative), min(worst_below, relative)
                    tables += 1
                    if -1e-9 <= relative <= 1e-6:
                        continue
                    entry = {"table": [x_a, n_a, x_b, n_b], "grid": float(grid[x_a, x_b]), "scipy": reference}
                    if relative > 0:
                        entry["maximum"] = maximum = _two_sided(x_a, n_a, x_b, n_b)
                        if maximum * (1 - 1e-12) <= float(grid[x_a, x_b]) <= maximum * (1 + 1e-6):
                            missed.append(entry)
                            continue
                    bad.append(entry)
    print(json.dumps({"tables": tables, "largest_relative_above_scipy": worst_above,
                      "largest_relative_below_scipy": worst_below, "scipy_below_the_maximum": missed,
                      "outside_bounds": bad[:20], "ok": not bad}))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
