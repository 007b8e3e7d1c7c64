"""The exact tests' cost (X-41): Boschloo's p-value of every outcome of 50 vs 50 (2,601 tables, each a maximum
over the common pass rate, certified) and the exactly calibrated thresholds of a 5-look sequential design
(looks 4, 8, 12, 16, 20; O'Brien–Fleming; α = 0.05), each from cold caches, after scipy is imported.
Bound: both together under 2 s on a 2-core machine. Prints one JSON line per figure.

    .venv/bin/python benchmarks/bench_exact_tests.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import scipy.stats  # noqa: F401  (its import is not the tests' cost)

from harness.stats import _pvalues, _sequential, _supremum, calibrated, p_grid

BOUND_S = 2.0
LOOKS = (4, 8, 12, 16, 20)


def _cold() -> None:
    for cached in (_pvalues.p_grid, _pvalues._side, _pvalues.rejected, _sequential.calibrated, _supremum._grid,
                   _supremum.log_choose, _supremum._mode_values):
        cached.cache_clear()


def _seconds(fn: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        _cold()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    grid = _seconds(lambda: p_grid(50, 50, "boschloo"), args.repeats)
    design = _seconds(lambda: calibrated(LOOKS, 0.05, "obrien-fleming", "boschloo"), args.repeats)
    fisher = _seconds(lambda: calibrated(LOOKS, 0.05, "obrien-fleming", "fisher"), args.repeats)
    for figure, value in (("boschloo_grid_50x50_s", grid), ("sequential_design_5_looks_boschloo_s", design),
                          ("sequential_design_5_looks_fisher_s", fisher)):
        print(json.dumps({"figure": figure, "value": round(value, 3)}))
    print(json.dumps({"figure": "grid_plus_design_s", "value": round(grid + design, 3), "bound": BOUND_S,
                      "ok": grid + design < BOUND_S}))


if __name__ == "__main__":
    main()
