"""A sequential design's exact figures (X-41): calibrated thresholds, the type I error by each look, the
design's size, and its power and expected repeats at given pass rates, by enumerating the outcomes.

A stage looked at after n_1 < … < n_K repeats per group compares two groups at each look with the named
test's p on the counts so far; a comparison crosses at a look when its p is below that look's threshold.
The outcomes are enumerated across looks, without simulation: at each look a table over (x_a, x_b) of the
fraction of the paths to it that crossed no earlier look (all paths to an outcome are equally likely
whatever the pass rates), moved to the next look through the increments (given x' passes in n' trials,
the passes among the first n are hypergeometric). Under equal rates the chance of a crossing by look k
is a polynomial in the common pass rate π of degree 2 n_k in Bernstein form, whose maximum over π
``_supremum`` bounds (never below it).

Calibrated (``spent_by``), the threshold at each look is the largest p-value cut-off under which that
maximum stays within the α spent by the look: the exact size is then at most α, and typically close to
it, where testing each look at the spending function's increment (``look_alphas``) uses a third of it
(looks 4, 8, 12, 16, 20, O'Brien–Fleming, Fisher: 0.0136 instead of 0.047). With a discrete test the
cut-off at a look can exceed the α spent there, or α itself, when no outcome has a p between them: the
cut-off is a p-value, the α is a chance, and the design's chance of a crossing is what is held to α.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._pvalues import TestName, p_grid
from ._spending import Spending, spent
from ._supremum import supremum


class Figures(NamedTuple):
    """A sequential design's exact figures for one comparison of two groups with the same looks."""

    thresholds: list[float]
    """Per look, the p-value cut-off of the test: a comparison crosses when p < threshold."""
    cumulative: list[float]
    """Per look, the largest chance over the common pass rate of crossing at or before it (certified bound)."""
    crossing: list[NDArray[np.bool_]]
    """Per look, the outcomes [x_a, x_b] that cross there."""
    reach: list[NDArray[np.float64]]
    """Per look, the fraction of the paths to each outcome that crossed no earlier look."""

    @property
    def size(self) -> float:
        """The design's exact size: the largest chance of a crossing at any look when the groups do not differ."""
        return self.cumulative[-1]


def _moves(before: int, after: int) -> NDArray[np.float64]:
    """[x', x]: of x' passes in ``after`` exchangeable trials, the chance that x were among the first ``before``."""
    from scipy.stats import hypergeom

    return hypergeom.pmf(np.arange(before + 1)[None, :], after, np.arange(after + 1)[:, None], before)


def _split_weight(n: int) -> NDArray[np.float64]:
    """[x_a, x_b]: the chance of that split of x_a + x_b passes in 2n trials, n per group."""
    from scipy.stats import hypergeom

    x = np.arange(n + 1)
    return hypergeom.pmf(x[:, None], 2 * n, x[:, None] + x[None, :], n)


def sequential_figures(looks: Sequence[int], test: TestName, spent_by: Sequence[float] | None = None,
                       thresholds: Sequence[float] | None = None) -> Figures:
    """The design's figures by enumerating the outcomes across looks: per look a distribution over (x_a, x_b)
    of the paths that have not crossed yet, moved to the next look by the increments' counts. With
    ``spent_by`` (the α spent by each look) the thresholds are calibrated: at each look the largest p-value
    cut-off under which the chance of crossing at or before it, maximised over the common pass rate,
    stays within the α spent by then. With ``thresholds`` those are evaluated."""
    from scipy.stats import hypergeom

    reach = np.ones((looks[0] + 1, looks[0] + 1))
    total = np.zeros(2 * looks[0] + 1)  # Bernstein coefficients of the chance of a crossing so far
    out = Figures([], [], [], [])
    for k, n in enumerate(looks):
        if k:
            before = looks[k - 1]
            elevate = hypergeom.pmf(np.arange(2 * before + 1)[:, None], 2 * n, np.arange(2 * n + 1)[None, :],
                                    2 * before)
            total, move = total @ elevate, _moves(before, n)
            reach = move @ np.where(out.crossing[-1], 0.0, reach) @ move.T
        p = p_grid(n, n, test).ravel()
        order = np.argsort(p, kind="stable")
        s = (order // (n + 1) + order % (n + 1))
        added = np.zeros((len(order), 2 * n + 1))
        added[np.arange(len(order)), s] = (reach * _split_weight(n)).ravel()[order]
        prefix = np.vstack([np.zeros(2 * n + 1), np.cumsum(added, axis=0)]) + total
        ends = np.append(np.nonzero(np.diff(p[order]) > 0)[0] + 1, len(order))  # prefix lengths between ties
        if thresholds is not None:
            length = int(np.searchsorted(p[order], thresholds[k], side="left"))
        else:
            assert spent_by is not None
            length = _longest(prefix, np.append(0, ends), spent_by[k])
        cut = float(p[order][length]) if length < len(order) else 1.0 + float(p.max())
        upper, _ = supremum(prefix[length][None, :])
        total = prefix[length]
        out.thresholds.append(cut if thresholds is None else float(thresholds[k]))
        out.cumulative.append(min(1.0, float(upper[0])))
        out.crossing.append((p < out.thresholds[-1]).reshape(n + 1, n + 1))
        out.reach.append(reach)
    return out


def _longest(prefix: NDArray[np.float64], lengths: NDArray[np.intp], limit: float) -> int:
    """The longest of ``lengths`` whose prefix's certified supremum stays within ``limit`` (0 if none does):
    the supremum grows with the prefix, so a bisection, 16 candidates a round."""
    low, high = 0, len(lengths)  # lengths[low] is within (0 always), lengths[high] is not
    while high - low > 1:
        picks = np.unique(np.linspace(low + 1, high - 1, min(16, high - low - 1)).round().astype(int))
        upper, _ = supremum(prefix[lengths[picks]])
        within = picks[upper <= limit]
        low = max(low, int(within.max())) if len(within) else low
        beyond = picks[upper > limit]
        high = min(high, int(beyond.min())) if len(beyond) else high
    return int(lengths[low])


def operating(figures: Figures, looks: Sequence[int], control: float, treatment: float) -> tuple[float, float]:
    """(power, expected repeats per group) when the groups pass at ``control`` and ``treatment``: the chance
    of crossing at some look, and the repeats run on average (a crossing stops the stage at its look)."""
    from scipy.stats import binom

    stops = []
    for n, cross, reach in zip(looks, figures.crossing, figures.reach, strict=True):
        x = np.arange(n + 1)
        stops.append(float(np.sum(reach * cross * np.outer(binom.pmf(x, n, control), binom.pmf(x, n, treatment)))))
    expected = sum(n * q for n, q in zip(looks[:-1], stops[:-1], strict=True)) + looks[-1] * (1 - sum(stops[:-1]))
    return min(1.0, sum(stops)), expected


@lru_cache(maxsize=64)
def calibrated(looks: tuple[int, ...], alpha: float, spending: Spending, test: TestName) -> Figures:
    """The exactly calibrated design of ``looks`` under ``spending`` of ``alpha`` for ``test``."""
    return sequential_figures(looks, test, spent_by=[spent(n / looks[-1], alpha, spending) for n in looks])
