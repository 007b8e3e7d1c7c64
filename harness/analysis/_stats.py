"""Reliability statistics (X-41, X-52): Wilson intervals, pass^k, Fisher's exact test.

With the plan's small n these numbers mostly say how little a single run can separate: 3/3 vs
0/3 gives a two-sided Fisher p of 0.10, so even the most extreme difference at n = 3 is "not
separable at this n". Reports must say so instead of ranking groups by raw pass rates.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, sqrt

import numpy as np
from numpy.typing import NDArray

Z_95 = 1.959963984540054
"""The 97.5th percentile of the standard normal distribution."""

ALPHA = 0.05


def wilson_interval(passes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of the pass rate; n = 0 gives the uninformative (0, 1)."""
    _check_counts(passes, n)
    if n == 0:
        return 0.0, 1.0
    p = passes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if passes == 0 else max(0.0, centre - half)  # exact ends, no rounding noise
    high = 1.0 if passes == n else min(1.0, centre + half)
    return low, high


def pass_hat_k(passes: int, n: int, k: int) -> float:
    """pass^k: the probability that k trials drawn without replacement from n all pass, C(c,k)/C(n,k)."""
    _check_counts(passes, n)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return comb(passes, k) / comb(n, k)


def pass_hat_ks(passes: int, n: int) -> dict[int, float]:
    """pass^k for every k from 1 to n (k = n is "every repeat passed", X-12)."""
    return {k: pass_hat_k(passes, n, k) for k in range(1, n + 1)}


def fisher_p(passes_a: int, n_a: int, passes_b: int, n_b: int) -> float:
    """Two-sided Fisher exact p-value of the 2×2 table (passed, failed) × (a, b)."""
    _check_counts(passes_a, n_a)
    _check_counts(passes_b, n_b)
    from scipy.stats import fisher_exact  # a second's import: only when a comparison is computed

    table = [[passes_a, n_a - passes_a], [passes_b, n_b - passes_b]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


_TIE = 1e-14
"""Relative tolerance within which two table probabilities count as equal (scipy's ``fisher_exact``)."""


@lru_cache(maxsize=64)
def fisher_p_grid(n_a: int, n_b: int) -> NDArray[np.float64]:
    """``fisher_p(x_a, n_a, x_b, n_b)`` for every outcome at once: entry ``[x_a, x_b]`` (read-only).

    The same two-sided rule as ``fisher_p`` (scipy's ``fisher_exact``): given the margins, the p of a
    table is the summed hypergeometric probability of every table no more probable than it (within a
    relative 1e-14), capped at 1, and 1 for the most probable table. Enumerating a design's outcomes
    with ``fisher_p`` one table at a time costs a millisecond each (40,000 tables at n = 200); this is
    one sort per column total, and the tests hold it equal to ``fisher_p`` table by table."""
    _check_counts(0, n_a)
    _check_counts(0, n_b)
    from scipy.stats import hypergeom

    total = n_a + n_b
    xs = np.arange(n_a + 1)
    table = hypergeom.pmf(xs[:, None], total, n_a, np.arange(total + 1)[None, :])  # [x_a, s]: s passes in all
    grid = np.ones((n_a + 1, n_b + 1))
    for s in range(total + 1):
        x = xs[max(0, s - n_b):min(n_a, s) + 1]
        pmf = table[x, s]
        ordered = np.sort(pmf)
        below = np.cumsum(ordered)[np.searchsorted(ordered, pmf * (1 + _TIE), side="right") - 1]
        grid[x, s - x] = np.where(pmf >= pmf.max() * (1 - _TIE), 1.0, np.minimum(below, 1.0))
    grid.setflags(write=False)
    return grid


def format_p(p_value: float, alpha: float = ALPHA) -> str:
    """A p-value as every report prints it: two significant digits ("0.10", "0.048", "0.0020"), "< 0.001"
    below 0.001, and never rounded across ``alpha`` (0.0496 prints as "0.0496", not "0.050")."""
    if p_value < 0.001:
        return "< 0.001"
    for digits in (2, 3, 4):
        text = f"{p_value:#.{digits}g}"
        if separable(float(text), alpha) == separable(p_value, alpha):
            return text
    return text


def p_text(p_value: float, alpha: float = ALPHA) -> str:
    """``p = 0.10`` / ``p = 0.0020`` / ``p < 0.001``: the p-value with its relation sign."""
    shown = format_p(p_value, alpha)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def separable(p_value: float, alpha: float = ALPHA) -> bool:
    """Two groups are called separable only when p < alpha (the plan's ``analysis.alpha``, 0.05 by default)."""
    return p_value < alpha


def verdict_text(apart: bool, alpha: float = ALPHA) -> str:
    """``separable (p < 0.05)`` / ``not separable at this n``: how every comparison words its p."""
    return f"separable (p < {alpha:g})" if apart else "not separable at this n"


def _check_counts(passes: int, n: int) -> None:
    if n < 0 or not 0 <= passes <= n:
        raise ValueError(f"need 0 <= passes <= n, got passes={passes}, n={n}")
