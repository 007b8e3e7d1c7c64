"""Boschloo's test (X-41), the default: every p-value of ``p_grid`` against ``scipy.stats.boschloo_exact``
and against an independent computation in exact arithmetic.

The independent computation: the one-sided statistic (Fisher's one-sided p) as an exact ``Fraction``, so
ties are exact; the region of tables at least as extreme; its probability as a polynomial in the common
pass rate π with exact coefficients, maximised at its endpoints and the real roots of its derivative.
The two-sided p is twice the smaller one-sided p, capped at 1, and scipy reads the groups from the
table's columns: ``[[x_a, x_b], [n_a - x_a, n_b - x_b]]``. The full comparison with scipy for every table
up to 15 per group (18,225 tables, some minutes) is ``scripts/boschloo_vs_scipy.py``."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

import numpy as np
import pytest

from harness.stats import p_grid, p_value

CAP = 1 + 1e-6
"""The grid's p is a certified upper bound of the maximum, within a relative 1e-7 of a value attained."""


def _scipy(x_a: int, n_a: int, x_b: int, n_b: int, alternative: str = "two-sided") -> float:
    from scipy.stats import boschloo_exact

    return float(boschloo_exact([[x_a, x_b], [n_a - x_a, n_b - x_b]], alternative=alternative).pvalue)


@cache
def _one_sided_exact(n_a: int, n_b: int) -> dict[tuple[int, int], float]:
    """P-value of 'a passes less often' for every table, from exact statistics and an exact polynomial."""
    def stat(i: int, j: int) -> Fraction:
        s = i + j
        return sum((Fraction(comb(n_a, k) * comb(n_b, s - k), comb(n_a + n_b, s))
                    for k in range(max(0, s - n_b), i + 1)), Fraction(0))

    tables = [(i, j) for i in range(n_a + 1) for j in range(n_b + 1)]
    stats = {t: stat(*t) for t in tables}
    out = {}
    for t in tables:
        region = [u for u in tables if stats[u] <= stats[t]]
        poly = np.polynomial.Polynomial([0.0])  # Σ C(n_a,i) C(n_b,j) π^(i+j) (1-π)^(N-i-j) over the region
        for i, j in region:
            term = np.polynomial.Polynomial([0, 1]) ** (i + j) * np.polynomial.Polynomial([1, -1]) ** (
                n_a + n_b - i - j)
            poly = poly + comb(n_a, i) * comb(n_b, j) * term
        roots = [r.real for r in poly.deriv().roots() if abs(r.imag) < 1e-9 and 0 <= r.real <= 1]
        out[t] = max(float(poly(x)) for x in [0.0, 1.0, *roots])
    return out


def _exact_two_sided(x_a: int, n_a: int, x_b: int, n_b: int) -> float:
    less = _one_sided_exact(n_a, n_b)[(x_a, x_b)]
    greater = _one_sided_exact(n_b, n_a)[(x_b, x_a)]
    return min(1.0, 2 * min(less, greater))


@pytest.mark.parametrize("n_a, n_b", [(1, 1), (2, 2), (3, 3), (4, 4), (2, 5), (6, 3), (5, 6), (6, 6)])
def test_every_table_matches_exact_arithmetic(n_a: int, n_b: int) -> None:
    grid = p_grid(n_a, n_b)
    for x_a in range(n_a + 1):
        for x_b in range(n_b + 1):
            exact = _exact_two_sided(x_a, n_a, x_b, n_b)
            assert exact * (1 - 1e-12) <= grid[x_a, x_b] <= exact * CAP  # never below the maximum
    assert not grid.flags.writeable


def _sample() -> list[tuple[int, int, int, int]]:
    """Tables up to 15 per group: all of 3 vs 3 and 2 vs 5, the extremes and the centre of several n,
    and a fixed spread of others."""
    out = [(a, 3, b, 3) for a in range(4) for b in range(4)] + [(a, 2, b, 5) for a in range(3) for b in range(6)]
    out += [(6, 12, 7, 12), (5, 12, 6, 12), (7, 15, 8, 15), (2, 15, 3, 15)]  # statistics tied at exactly 1/2
    for n_a, n_b in ((15, 15), (7, 12), (1, 15), (10, 9)):
        out += [(n_a, n_a, 0, n_b), (0, n_a, n_b, n_b), (n_a // 2, n_a, n_b // 2, n_b), (n_a, n_a, n_b, n_b)]
    rng = np.random.default_rng(26)
    for _ in range(14):
        n_a, n_b = (int(v) for v in rng.integers(1, 16, 2))
        out.append((int(rng.integers(0, n_a + 1)), n_a, int(rng.integers(0, n_b + 1)), n_b))
    return out


def test_agrees_with_scipy_boschloo_exact() -> None:
    for x_a, n_a, x_b, n_b in _sample():
        reference = _scipy(x_a, n_a, x_b, n_b)
        mine = p_value(x_a, n_a, x_b, n_b)
        assert reference * (1 - 1e-9) <= mine <= reference * CAP, (x_a, n_a, x_b, n_b, mine, reference)


def test_the_definitions_scipy_uses() -> None:
    """Two-sided is twice the smaller one-sided p; the groups are the columns; the published numbers."""
    for x_a, n_a, x_b, n_b in ((3, 3, 0, 3), (6, 20, 0, 20), (4, 9, 1, 7)):
        twice = min(1.0, 2 * min(_scipy(x_a, n_a, x_b, n_b, "less"), _scipy(x_a, n_a, x_b, n_b, "greater")))
        assert _scipy(x_a, n_a, x_b, n_b) == pytest.approx(twice, rel=1e-9)
        assert p_value(x_a, n_a, x_b, n_b) == pytest.approx(p_value(x_b, n_b, x_a, n_a), rel=1e-9)  # symmetric
    assert p_value(3, 3, 0, 3) == pytest.approx(2 / 64, rel=1e-9)  # 0.031 (Fisher: 0.10)
    assert p_value(6, 20, 0, 20) == pytest.approx(0.00974, abs=1e-5)  # the local probe's v1 vs A (Fisher: 0.020)
    assert p_value(6, 20, 0, 20, "fisher") == pytest.approx(0.0202, abs=1e-4)


@pytest.mark.parametrize("n_a, n_b", [(8, 8), (12, 12), (20, 20), (25, 25), (12, 9)])
def test_swapping_groups_or_passes_and_failures_keeps_the_p(n_a: int, n_b: int) -> None:
    """The test is symmetric: a vs b and b vs a, and passes read as failures, give the same p. Many statistics
    tie in exact arithmetic (P(X_a ≤ k | 2k + 1) = 1/2 for every k at equal n); a tie broken by rounding would
    leave a mirror table out of a region and its p below the maximum (12 vs 12, 6/12 vs 7/12: 0.81 for 0.84)."""
    grid = p_grid(n_a, n_b)
    assert np.allclose(grid, grid[::-1, ::-1], rtol=1e-12, atol=0)
    assert np.allclose(grid, p_grid(n_b, n_a).T, rtol=1e-12, atol=0)


def test_beyond_the_grid_limit_one_outcome_is_computed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large n: a single p from the outcome's own regions, the same value the grid holds."""
    from harness.stats import _pvalues

    grid = p_grid(12, 9)
    monkeypatch.setattr(_pvalues, "GRID_LIMIT", 10)
    for x_a, x_b in ((12, 0), (7, 2), (5, 5), (0, 9)):
        assert p_value(x_a, 12, x_b, 9) == pytest.approx(float(grid[x_a, x_b]), rel=1e-12)


def test_where_scipys_search_misses_the_peak_the_grid_does_not() -> None:
    """2/12 vs 8/12: the one-sided region's probability has two peaks (π ≈ 0.49 and 0.51); scipy's search
    (shgo) stops a relative 1e-6 below them, the grid's certified bound is at the maximum found apart: the
    region on a dense grid of rates, refined by a bounded search."""
    from scipy.optimize import minimize_scalar
    from scipy.stats import binom, hypergeom

    a, b = np.arange(13)[:, None], np.arange(13)[None, :]
    stat = hypergeom.cdf(a, 24, a + b, 12)
    region = stat <= stat[2, 8] * (1 + 1e-13)

    def chance(rate: float) -> float:
        return float(np.sum(np.outer(binom.pmf(a[:, 0], 12, rate), binom.pmf(b[0], 12, rate)) * region))

    best = max(np.linspace(0.0, 1.0, 2001), key=chance)
    found = minimize_scalar(lambda r: -chance(r), bounds=(best - 1e-3, best + 1e-3), method="bounded",
                            options={"xatol": 1e-14})
    maximum = 2 * max(chance(best), -found.fun)
    assert _scipy(2, 12, 8, 12) < maximum * (1 - 5e-7)  # scipy's search: below the maximum
    assert maximum <= p_value(2, 12, 8, 12) <= maximum * (1 + 1e-7)
