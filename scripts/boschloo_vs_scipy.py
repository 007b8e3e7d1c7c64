"""Every table up to 15 per group (18,225 tables): ``harness.stats.p_grid`` (Boschloo) against
``scipy.stats.boschloo_exact``, which reads the groups from the table's columns. The grid's p is a certified
upper bound of the maximum over the common pass rate, so it is never below scipy's (which maximises by
search) by more than rounding, and above it by at most a relative 1e-6. Prints the largest differences and
exits 1 on a table outside those bounds. Takes some minutes (scipy's search, table by table).

    .venv/bin/python scripts/boschloo_vs_scipy.py [--max-n 15]
"""

from __future__ import annotations

import argparse
import json
import sys

from scipy.stats import boschloo_exact

from harness.stats import p_grid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=15)
    args = parser.parse_args()
    worst_above = worst_below = 0.0
    bad, tables = [], 0
    for n_a in range(1, args.max_n + 1):
        for n_b in range(1, args.max_n + 1):
            grid = p_grid(n_a, n_b)
            for x_a in range(n_a + 1):
                for x_b in range(n_b + 1):
                    reference = float(boschloo_exact([[x_a, x_b], [n_a - x_a, n_b - x_b]]).pvalue)
                    relative = (float(grid[x_a, x_b]) - reference) / reference
                    worst_above, worst_below = max(worst_above, relative), min(worst_below, relative)
                    tables += 1
                    if not -1e-9 <= relative <= 1e-6:
                        bad.append({"table": [x_a, n_a, x_b, n_b], "grid": float(grid[x_a, x_b]), "scipy": reference})
    print(json.dumps({"tables": tables, "largest_relative_above_scipy": worst_above,
                      "largest_relative_below_scipy": worst_below, "outside_bounds": bad[:20], "ok": not bad}))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
