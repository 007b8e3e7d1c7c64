"""A sequential design's exact figures (X-41), against an independent enumeration.

The independent enumeration follows the probabilities themselves, at each common pass rate of a grid:
the distribution of (x_a, x_b) among the paths that have not crossed yet, convolved with each group's
binomial increment to the next look (scipy's ``binom``), the crossing outcomes removed at each look by
their p-value (Fisher's from scipy's ``fisher_exact``, Boschloo's from the grid ``test_boschloo`` checks
against scipy). The design under test tracks path fractions and maximises over the pass rate with a
certified bound; the two must agree, and the calibrated thresholds must be the largest the α spent allows."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from harness.stats import calibrated, fisher_p, look_alphas, operating, p_grid, sequential_figures, spent

LOOKS = (4, 8, 12, 16, 20)
RATES = np.linspace(0.0, 1.0, 401)


@cache
def _p(n: int, test: str) -> np.ndarray:
    if test == "fisher":
        return np.array([[fisher_p(a, n, b, n) for b in range(n + 1)] for a in range(n + 1)])
    return np.asarray(p_grid(n, n, "boschloo"))


def _enumerate(thresholds: list[float], test: str, rate_a: np.ndarray, rate_b: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(chance of a crossing by each look, chance of stopping at each look), per pair of rates."""
    from scipy.stats import binom

    alive = np.ones((len(rate_a), 1, 1))
    done, before, by_look, stops = 0, np.zeros(len(rate_a)), [], []
    for n, cut in zip(LOOKS, thresholds, strict=True):
        step = np.arange(n - done + 1)
        inc_a, inc_b = binom.pmf(step[None, :], n - done, rate_a[:, None]), binom.pmf(step[None, :], n - done,
                                                                                      rate_b[:, None])
        grown = np.zeros((len(rate_a), n + 1, n + 1))
        for i in range(alive.shape[1]):
            for j in range(alive.shape[2]):
                grown[:, i:i + len(step), j:j + len(step)] += (alive[:, i, j, None, None] * inc_a[:, :, None]
                                                              * inc_b[:, None, :])
        cross = _p(n, test) < cut
        stop = (grown * cross).sum(axis=(1, 2))
        before = before + stop
        by_look.append(before.copy())
        stops.append(stop)
        alive, done = np.where(cross, 0.0, grown), n
    return np.array(by_look), np.array(stops)


@pytest.mark.parametrize("test", ["fisher", "boschloo"])
def test_calibrated_thresholds_agree_with_independent_enumeration(test: str) -> None:
    design = calibrated(LOOKS, 0.05, "obrien-fleming", test)
    errors, _ = _enumerate(design.thresholds, test, RATES, RATES)
    spent_by = [spent(n / LOOKS[-1]) for n in LOOKS]
    for k in range(len(LOOKS)):
        assert errors[k].max() <= design.cumulative[k] <= errors[k].max() + 1e-6  # certified, and close
        assert design.cumulative[k] <= spent_by[k]
    assert 0.04 <= design.size <= 0.05
    # the largest thresholds: at each look where a stricter-than-necessary cut could hide, the next p-value
    # up makes the chance of a crossing by then exceed the α spent, at some common pass rate
    for k, n in enumerate(LOOKS):
        above = np.unique(_p(n, test)[_p(n, test) >= design.thresholds[k]])
        if len(above) < 2:
            continue
        looser = [*design.thresholds[:k], float(above[1]), *design.thresholds[k + 1:]]
        wider, _ = _enumerate(looser, test, RATES, RATES)
        assert wider[k].max() > spent_by[k] * (1 - 1e-6), (k, design.thresholds[k], above[1])


def test_the_published_numbers() -> None:
    """Looks 4, 8, 12, 16, 20, O'Brien–Fleming, α = 0.05, Fisher: each look tested at the spending function's
    increment has size 0.0136; calibrated, 0.047, and power for 0.8 vs 0.4 from 0.53 to 0.73 with 16.7
    instead of 17.7 repeats per group on average."""
    increments = look_alphas(list(LOOKS))
    legacy = sequential_figures(LOOKS, "fisher", thresholds=increments)
    design = calibrated(LOOKS, 0.05, "obrien-fleming", "fisher")
    assert legacy.size == pytest.approx(0.0136, abs=1e-4) and design.size == pytest.approx(0.047, abs=1e-3)
    old, new = operating(legacy, LOOKS, 0.8, 0.4), operating(design, LOOKS, 0.8, 0.4)
    assert (round(old[0], 2), round(new[0], 2)) == (0.53, 0.73)
    assert (round(old[1], 1), round(new[1], 1)) == (17.7, 16.7)
    errors, stops = _enumerate(design.thresholds, "fisher", np.array([0.8]), np.array([0.4]))
    expected = (sum(n * q for n, q in zip(LOOKS[:-1], stops[:-1, 0], strict=True))
                + LOOKS[-1] * (1 - stops[:-1, 0].sum()))
    assert new == pytest.approx((errors[-1, 0], expected), rel=1e-9)
    legacy_errors, _ = _enumerate(increments, "fisher", RATES, RATES)
    assert legacy_errors[-1].max() <= legacy.size <= legacy_errors[-1].max() + 1e-6
