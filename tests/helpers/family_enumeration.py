"""Exact null probabilities for the family-wise error tests (tests/harness/analysis/test_family_fwer.py),
computed with scipy alone, independently of ``harness.stats``.

- ``boschloo(n)``: Boschloo's two-sided p of every outcome of n vs n trials, as ``scipy.stats.boschloo_exact``
  defines it (the groups are the table's columns). One-sided, "a passes less often": the statistic of a
  table is Fisher's one-sided p, ``hypergeom.cdf(x_a, 2n, x_a + x_b, n)``; the tables as extreme are those
  whose statistic is at most the observed one's × (1 + 1e-13) (scipy's tolerance); the p is their
  probability maximised over the common pass rate π. The other side is the transpose (equal n); the
  two-sided p is twice the smaller one-sided p, capped at 1.
- A region's probability at π is Σ_s P(region | s passes in all) · P(S = s), the first from hypergeom,
  the second ``binom.pmf(s, 2n, π)``: every region is a row of conditional probabilities, evaluated on a
  grid of 2001 rates at once and refined by ``scipy.optimize.minimize_scalar`` around each grid peak
  within a relative 1e-4 of the grid's best (the grid's own error is below 3e-5 at n ≤ 50).
- ``sup_chance(indicator)``: sup over π of the chance of a set of outcomes of k groups of n trials each,
  all passing at π: the same rows, one per set (Π C(n, x_i) / C(kn, s) summed per total s).
- ``compatible_chance``: the chance that no two of k groups of n trials at rate π are separable at a
  cut-off c, without enumerating the (n + 1)^k outcomes, from the band the non-separable pairs form.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from math import comb

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar
from scipy.stats import binom, hypergeom

RATES = np.linspace(0.0, 1.0, 2001)
TIE = 1e-13
"""scipy's ``boschloo_exact``: a statistic within a relative 1e-13 of the observed one is as extreme."""
PEAK = 1e-4
"""Grid peaks within this relative distance of the grid's best are refined."""

Array = NDArray[np.float64]


def maximise(on_grid: Array, value: Callable[[int, float], float]) -> Array:
    """Row by row, the maximum over π ∈ [0, 1] of a smooth function known on ``RATES`` (``on_grid``, one row
    per function) and pointwise (``value(row, π)``): the grid's best, refined around every grid peak near it."""
    best = on_grid.max(axis=1)
    padded = np.pad(on_grid, ((0, 0), (1, 1)), constant_values=-np.inf)
    peaks = (on_grid >= padded[:, :-2]) & (on_grid >= padded[:, 2:]) & (on_grid >= (best * (1 - PEAK))[:, None])
    out = best.copy()
    for row in range(len(on_grid)):
        if best[row] >= 1 - 1e-12:  # the whole space (flat at 1): nothing to refine
            continue
        where = np.flatnonzero(peaks[row])
        for k in where[np.argsort(on_grid[row, where])[::-1][:3]]:
            low, high = RATES[max(k - 1, 0)], RATES[min(k + 1, len(RATES) - 1)]
            found = minimize_scalar(lambda r, row=row: -value(row, r), bounds=(low, high), method="bounded",
                                    options={"xatol": 1e-13})
            out[row] = max(out[row], -float(found.fun))
    return out


@cache
def pmf_grid(total: int) -> Array:
    """``binom.pmf(s, total, π)`` for every π of ``RATES`` (rows) and s (columns)."""
    return binom.pmf(np.arange(total + 1)[None, :], total, RATES[:, None])


def sup_rows(rows: Array, total: int) -> Array:
    """sup over π of Σ_s rows[r, s] · P(Bin(total, π) = s), for every row r."""
    s = np.arange(total + 1)
    return maximise(rows @ pmf_grid(total).T, lambda r, rate: float(rows[r] @ binom.pmf(s, total, rate)))


@cache
def fisher_statistic(n: int) -> Array:
    """Fisher's one-sided p, P(X_a ≤ x_a | x_a + x_b), of every table [x_a, x_b] of n vs n (scipy's hypergeom)."""
    a, b = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    return hypergeom.cdf(a, 2 * n, a + b, n)


def exact_statistic(n: int) -> Array:
    """The same statistic as a ratio of integers, correctly rounded (to check the regions hypergeom gives)."""
    out = np.empty((n + 1, n + 1))
    for i in range(n + 1):
        for j in range(n + 1):
            s = i + j
            ways = sum(comb(n, k) * comb(n, s - k) for k in range(max(0, s - n), i + 1))
            out[i, j] = float(Fraction(ways, comb(2 * n, s)))
    return out


def region_sizes(statistic: Array) -> NDArray[np.intp]:
    """Per table (flattened): how many tables are as extreme (statistic ≤ its own × (1 + TIE))."""
    flat = statistic.ravel()
    return np.searchsorted(np.sort(flat), flat * (1 + TIE), side="right")


@cache
def one_sided(n: int) -> Array:
    """P-value of "a passes less often" for every table [x_a, x_b] of n vs n."""
    statistic = fisher_statistic(n)
    order = np.argsort(statistic.ravel(), kind="stable")
    a, b = np.divmod(order, n + 1)
    rows = np.zeros((len(order), 2 * n + 1))  # row r: P(table order[r] | s), in its column s
    rows[np.arange(len(order)), a + b] = hypergeom.pmf(a, 2 * n, a + b, n)
    sizes = region_sizes(statistic)
    lengths, index = np.unique(sizes, return_inverse=True)
    regions = np.cumsum(rows, axis=0)[lengths - 1]  # P(region | s) for every distinct region
    return np.minimum(1.0, sup_rows(regions, 2 * n))[index].reshape(n + 1, n + 1)


@cache
def boschloo(n: int) -> Array:
    """Two-sided Boschloo p of every outcome [x_a, x_b] of n vs n (read-only)."""
    less = one_sided(n)
    out = np.minimum(1.0, 2 * np.minimum(less, less.T))
    out.setflags(write=False)
    return out


def outcome_weights(k: int, n: int) -> tuple[Array, NDArray[np.intp]]:
    """For every outcome of k groups of n trials (flattened, C order): P(outcome | s passes in all), and s."""
    ways = np.array([float(comb(n, x)) for x in range(n + 1)])
    weight, s = np.ones(1), np.zeros(1, dtype=np.intp)
    for _ in range(k):
        weight = (weight[:, None] * ways[None, :]).ravel()
        s = (s[:, None] + np.arange(n + 1)[None, :]).ravel()
    total = np.array([float(comb(k * n, t)) for t in range(k * n + 1)])
    return weight / total[s], s


def sup_chance(indicator: NDArray[np.bool_]) -> float:
    """sup over the common rate π of P(outcome in ``indicator``), its axes k groups of n trials each."""
    k, n = indicator.ndim, indicator.shape[0] - 1
    weight, s = outcome_weights(k, n)
    row = np.bincount(s, weights=weight * indicator.ravel(), minlength=k * n + 1)
    return float(sup_rows(row[None, :], k * n)[0])


def is_band(compatible: NDArray[np.bool_]) -> bool:
    """Do the compatible pairs (x, y) form a band: symmetric, the diagonal in, and with (x, y) (x < y) every
    pair inside it, (x + 1, y) and (x, y − 1)? Then k outcomes are pairwise compatible exactly when their
    smallest and largest are (every pair of them lies inside those two)."""
    upper = np.triu(compatible, 1)
    inward_low = ~upper[:-1, :] | compatible[1:, :]  # (x, y) in → (x + 1, y) in (x + 1 ≤ y)
    inward_high = ~upper[:, 1:] | compatible[:, :-1]  # (x, y) in → (x, y − 1) in
    return bool(np.array_equal(compatible, compatible.T) and compatible.diagonal().all()
                and inward_low.all() and inward_high.all())


def _all_compatible(compatible: NDArray[np.bool_], k: int, cdf: Array) -> Array:
    """P(smallest and largest of k outcomes compatible), from the binomial CDF (rows: rates; ``cdf[:, x + 1]``
    = P(X ≤ x), ``cdf[:, 0]`` = 0): P(min = lo, max = hi) by inclusion–exclusion on P(all in [lo, hi])."""
    n = compatible.shape[0] - 1

    def inside(low: NDArray[np.intp], high: NDArray[np.intp]) -> Array:  # P(every outcome in [low, high])
        width = np.where(high >= low, cdf[:, np.clip(high, -1, n) + 1] - cdf[:, np.clip(low, 0, n + 1)], 0.0)
        return np.clip(width, 0.0, 1.0) ** k

    lo, hi = np.nonzero(np.triu(compatible))
    exactly = inside(lo, hi) - inside(lo + 1, hi) - inside(lo, hi - 1) + inside(lo + 1, hi - 1)
    return exactly.sum(axis=1)


def compatible_chance(compatible: NDArray[np.bool_], k: int) -> float:
    """sup over π of P(some pair of k groups of n trials at rate π is not compatible): 1 − P(all are)."""
    assert is_band(compatible)
    n = compatible.shape[0] - 1

    def cdf(rates: Array) -> Array:
        return np.hstack([np.zeros((len(rates), 1)), binom.cdf(np.arange(n + 1)[None, :], n, rates[:, None])])

    grid = 1.0 - _all_compatible(compatible, k, cdf(RATES))
    return float(maximise(grid[None, :], lambda _, r: 1.0 - float(_all_compatible(compatible, k,
                                                                                   cdf(np.array([r])))[0]))[0])
