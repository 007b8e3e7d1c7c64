"""The maximum over the common pass rate (X-41), certified: never below the supremum, within a relative 1e-6
of it, including peaks a grid of π alone misses."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from harness.stats import supremum
from harness.stats._supremum import pmf


def _dense_max(beta: np.ndarray) -> np.ndarray:
    """Independent: the polynomials on 5,001 points (scipy's binomial pmf), then a bounded scalar search
    around the best."""
    from scipy.optimize import minimize_scalar
    from scipy.stats import binom

    n = beta.shape[1] - 1
    x = np.linspace(0.0, 1.0, 5_001)
    table = binom.pmf(np.arange(n + 1)[None, :], n, x[:, None])
    dense = beta @ table.T
    out = dense.max(axis=1)
    for r, k in enumerate(dense.argmax(axis=1)):
        low, high = x[max(k - 1, 0)], x[min(k + 1, len(x) - 1)]
        found = minimize_scalar(lambda t, r=r: -float(beta[r] @ binom.pmf(np.arange(n + 1), n, t)),
                                bounds=(low, high), method="bounded", options={"xatol": 1e-12})
        out[r] = max(out[r], -found.fun)
    return out


@pytest.mark.parametrize("n", [1, 2, 7, 40, 101])
def test_upper_bound_of_random_polynomials(n: int) -> None:
    rng = np.random.default_rng(n)
    beta = rng.random((12, n + 1)) ** 3
    beta[:6] = np.cumsum(rng.random((6, n + 1)) < 0.2, axis=1)[:, ::-1] > 0  # tail-shaped, as regions are
    upper, seen = supremum(beta)
    truth = _dense_max(beta)
    assert (upper >= truth).all() and (seen <= truth * (1 + 1e-12)).all()
    assert (upper <= truth * (1 + 1e-6)).all()


def test_a_peak_between_grid_points_is_not_missed() -> None:
    """One pmf term: its peak (at s/n) falls between the grid's points, where the grid alone reads less."""
    n, s = 101, 50
    beta = np.zeros((1, n + 1))
    beta[0, s] = 1.0
    peak = comb(n, s) * (s / n) ** s * (1 - s / n) ** (n - s)
    grid = np.linspace(0.0, 1.0, 2 * n + 9)
    assert float(pmf(n, grid)[:, s].max()) < peak * (1 - 1e-6)  # the first grid misses it
    upper, seen = supremum(beta)
    assert peak <= upper[0] <= peak * (1 + 1e-6) and seen[0] <= peak
