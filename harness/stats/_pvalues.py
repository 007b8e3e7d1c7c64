"""The one owner of the test every comparison uses (X-41): p-values for every outcome of n_a vs n_b trials
at once, and the outcomes a test at α calls separable.

Two exact tests of "the groups pass at the same rate", chosen by the plan's ``analysis.test``:

- ``boschloo`` (the default): Boschloo's unconditional test, as ``scipy.stats.boschloo_exact`` defines it
  with the groups as the table's columns. One-sided ("a passes less often"): the statistic of a table is
  Fisher's one-sided p, P(X_a ≤ x_a | x_a + x_b passes in all), hypergeometric; the tables at least as
  extreme are those whose statistic is at most the observed one's × (1 + 1e-13) (ties within rounding are
  equally extreme); the p-value is their binomial probability maximised over the common pass rate π
  (``_supremum``: a certified upper bound, never below the maximum). The other side swaps the groups;
  the two-sided p is twice the smaller one-sided p, capped at 1. It keeps the size at α and, with equal
  groups, separates every outcome Fisher's test does (with unequal ones, twice the smaller one-sided p
  can miss an outcome Fisher's two-sided test takes).
- ``fisher``: Fisher's exact test (``fisher_p_grid``), conditional on the total passes.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ._reliability import _check_counts
from ._supremum import pmf, supremum

TestName = Literal["boschloo", "fisher"]
TESTS: tuple[TestName, ...] = ("boschloo", "fisher")
DEFAULT_TEST: TestName = "boschloo"
TITLES = {"boschloo": "Boschloo", "fisher": "Fisher"}
_BOSCHLOO_TIE = 1e-13
"""scipy's ``boschloo_exact``: a statistic within a relative 1e-13 of the observed one is as extreme."""
_BATCH = 16
GRID_LIMIT = 101 * 101
"""Up to this many outcomes a single p is read from the cached grid of every outcome's p."""


def fisher_p(passes_a: int, n_a: int, passes_b: int, n_b: int) -> float:
    """Two-sided Fisher exact p-value of the 2×2 table (passed, failed) × (a, b)."""
    _check_counts(passes_a, n_a)
    _check_counts(passes_b, n_b)
    from scipy.stats import fisher_exact  # a second's import: only when a comparison is computed

    table = [[passes_a, n_a - passes_a], [passes_b, n_b - passes_b]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


_FISHER_TIE = 1e-14
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
        below = np.cumsum(ordered)[np.searchsorted(ordered, pmf * (1 + _FISHER_TIE), side="right") - 1]
        grid[x, s - x] = np.where(pmf >= pmf.max() * (1 - _FISHER_TIE), 1.0, np.minimum(below, 1.0))
    grid.setflags(write=False)
    return grid


def _check(n_a: int, n_b: int, test: str) -> None:
    if n_a < 1 or n_b < 1:
        raise ValueError(f"n per group must be at least 1, got {n_a} and {n_b}")
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")


@lru_cache(maxsize=256)
def _choose(n: int) -> NDArray[np.object_]:
    return np.array([comb(n, k) for k in range(n + 1)], dtype=object)


@lru_cache(maxsize=128)
def _side(n_a: int, n_b: int, side: int) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
    """(tables ordered by the statistic, the length of each table's region in that order, the Bernstein
    coefficient each ordered table adds: its hypergeometric probability given s = x_a + x_b passes).
    Tables are flattened as x_a · (n_b + 1) + x_b; ``side`` 0: a passes less often, 1: b does."""
    total = n_a + n_b
    xa, xb = np.arange(n_a + 1)[:, None], np.arange(n_b + 1)[None, :]
    ways = np.outer(_choose(n_a), _choose(n_b))  # exact integers: C(n_a, x_a) C(n_b, x_b)
    by_sum = np.zeros((n_a + 1, total + 1), dtype=object)  # [x_a, s]: one column per total, x_a ascending
    by_sum[xa, xa + xb] = ways
    tail = np.cumsum(by_sum, axis=0) if side == 0 else np.cumsum(by_sum[::-1], axis=0)[::-1]
    # Fisher's one-sided p, P(X_a ≤ x_a | s) or P(X_b ≤ x_b | s): a ratio of integers, correctly rounded, so
    # statistics equal in exact arithmetic are the same float (scipy's tolerance is then for its rounding)
    stat = (tail[xa, xa + xb] / _choose(total)[xa + xb]).astype(float).ravel()
    split = (ways / _choose(total)[xa + xb]).astype(float)
    order = np.argsort(stat, kind="stable")
    ends = np.searchsorted(stat[order], stat * (1 + _BOSCHLOO_TIE), side="right")
    return order, ends, split.ravel()[order]


def _coefficients(n_a: int, n_b: int, side: int, lengths: NDArray[np.intp]) -> NDArray[np.float64]:
    """Bernstein coefficients (rows) of the regions made of the first ``lengths`` ordered tables."""
    order, _, weight = _side(n_a, n_b, side)
    s, width = order // (n_b + 1) + order % (n_b + 1), n_a + n_b + 1
    if len(lengths) <= 64:  # a few regions (a bisection): one weighted count each
        return np.array([np.bincount(s[:k], weight[:k], minlength=width) for k in lengths]).reshape(-1, width)
    added = np.zeros((len(order), width))
    added[np.arange(len(order)), s] = weight
    return np.cumsum(added, axis=0)[lengths - 1]


def _one_sided(n_a: int, n_b: int, side: int) -> NDArray[np.float64]:
    """Each table's one-sided p (flattened)."""
    _, ends, _ = _side(n_a, n_b, side)
    lengths, index = np.unique(ends, return_inverse=True)
    upper, _ = supremum(_coefficients(n_a, n_b, side, lengths))
    return upper[index]


@lru_cache(maxsize=64)
def p_grid(n_a: int, n_b: int, test: TestName = DEFAULT_TEST) -> NDArray[np.float64]:
    """The two-sided p of every outcome: entry ``[x_a, x_b]`` (read-only)."""
    _check(n_a, n_b, test)
    if test == "fisher":
        return fisher_p_grid(n_a, n_b)
    low = np.minimum(_one_sided(n_a, n_b, 0), _one_sided(n_a, n_b, 1))
    grid = np.minimum(1.0, 2 * low).reshape(n_a + 1, n_b + 1)
    grid.setflags(write=False)
    return grid


def p_value(passes_a: int, n_a: int, passes_b: int, n_b: int, test: TestName = DEFAULT_TEST) -> float:
    """The two-sided p of one outcome: from ``p_grid`` up to ``GRID_LIMIT`` outcomes (so a design and its
    comparisons read the same value), beyond it from the outcome's two regions alone."""
    if not (0 <= passes_a <= n_a and 0 <= passes_b <= n_b):
        raise ValueError(f"need 0 <= passes <= n, got {passes_a}/{n_a} and {passes_b}/{n_b}")
    if test == "fisher" or (n_a + 1) * (n_b + 1) <= GRID_LIMIT:
        return float(p_grid(n_a, n_b, test)[passes_a, passes_b])
    _check(n_a, n_b, test)
    table = passes_a * (n_b + 1) + passes_b
    sides = [float(supremum(_coefficients(n_a, n_b, side, _side(n_a, n_b, side)[1][table:table + 1]))[0][0])
             for side in (0, 1)]
    return min(1.0, 2 * min(sides))


def _smallest_region(n_a: int, n_b: int, side: int, alpha: float) -> int:
    """The longest region of ordered tables whose one-sided p stays below alpha / 2 (0: none), by bisection
    over the region lengths, ``_BATCH`` candidates a round."""
    _, ends, _ = _side(n_a, n_b, side)
    lengths = np.unique(ends)
    low, high = -1, len(lengths)  # lengths[low] is below, lengths[high] is not (-1, len: none known)
    while high - low > 1:
        picks = np.unique(np.linspace(low + 1, high - 1, min(_BATCH, high - low - 1)).round().astype(int))
        upper, _ = supremum(_coefficients(n_a, n_b, side, lengths[picks]))
        below = picks[2 * upper < alpha]
        low = max(low, int(below.max())) if len(below) else low
        above = picks[2 * upper >= alpha]
        high = min(high, int(above.min())) if len(above) else high
    return 0 if low < 0 else int(lengths[low])


def _outer_region(n_a: int, n_b: int, side: int, alpha: float) -> int:
    """A region of ordered tables containing every one whose one-sided p is below alpha / 2: the p-value is a
    maximum over π, so it is at least its value at any π; here the largest of 17."""
    order, _, _ = _side(n_a, n_b, side)
    at = np.linspace(0.0, 1.0, 17)
    mass = np.cumsum(pmf(n_a, at)[:, order // (n_b + 1)] * pmf(n_b, at)[:, order % (n_b + 1)], axis=1).max(axis=0)
    return int(np.searchsorted(2 * mass, alpha, side="left"))


@lru_cache(maxsize=512)
def rejected(n_a: int, n_b: int, alpha: float, test: TestName = DEFAULT_TEST, outer: bool = False) -> NDArray[np.bool_]:
    """The outcomes separable at ``alpha`` (p < alpha): entry ``[x_a, x_b]``. For Boschloo's test without
    every p-value: the separable outcomes of a side are a region of its ordered tables, found by bisection.
    ``outer``: a superset of them that is cheap to find, for ruling an n out (its power bounds the power)."""
    _check(n_a, n_b, test)
    if test == "fisher" or (not outer and (n_a + 1) * (n_b + 1) <= 441):
        return p_grid(n_a, n_b, test) < alpha
    out = np.zeros((n_a + 1) * (n_b + 1), dtype=bool)
    for side in (0, 1):
        _, ends, _ = _side(n_a, n_b, side)
        out |= ends <= (_outer_region if outer else _smallest_region)(n_a, n_b, side, alpha)
    return out.reshape(n_a + 1, n_b + 1)


def smallest_p(n_a: int, n_b: int, test: TestName = DEFAULT_TEST) -> float:
    """The smallest two-sided p any outcome of n_a vs n_b can reach: the most extreme region's."""
    _check(n_a, n_b, test)
    if test == "fisher":
        return float(fisher_p_grid(n_a, n_b).min())
    first = [np.array([_side(n_a, n_b, side)[1].min()]) for side in (0, 1)]
    return min(1.0, 2 * min(float(supremum(_coefficients(n_a, n_b, side, first[side]))[0][0]) for side in (0, 1)))
