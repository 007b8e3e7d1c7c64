"""A sequential design's exact figures (X-41): thresholds calibrated for the listed comparisons together, the
type I error by each look, the design's size, by enumerating the outcomes across looks.

A stage looked at after n_1 < … < n_K repeats per group tests each listed comparison at each look with the
named test's p on the counts so far; a comparison crosses at a look when its p is below that look's
threshold (one threshold per look for every comparison). The comparisons' groups are enumerated together
across looks, without simulation, one connected component at a time (``_joint``: B:A and C:A share A, so
{A, B, C} are enumerated jointly; v2:v1 is another component): at each look an array over the component's
outcomes (x_g) of the fraction of the paths to each that crossed no earlier look (all paths to an outcome
are equally likely whatever the pass rates), moved to the next look through the increments. When no group
differs from another, a component's chance that some comparison has crossed by look k is a polynomial in its
common pass rate of degree m n_k in Bernstein form, whose maximum ``_supremum`` bounds (never below it);
components are independent and their rates free, so the chance that *any* listed comparison has crossed by
look k is 1 − Π_c (1 − sup_c).

Calibrated (``spent_by``), the threshold at look k makes that chance, maximised over the common rates, stay
within the α spent by look k, crossing as many outcomes as it can: the exact size of the comparisons
together is then at most α, and close to it (looks 4, 8, 12, 16, 20, O'Brien–Fleming, α = 0.05, Boschloo's
test: 0.047 for one comparison; testing each look at the spending function's increment, ``look_alphas``,
uses a third of it). As it is held for any crossing, not only for a stop (every comparison crossing at one
look), the chance of a false crossing of any comparison is held at α whichever groups do not differ.
Each threshold lies halfway between the largest p-value that crosses and the smallest that does not
(half the smallest when none crosses), so an accurate computation of the p-values that differs from the
harness's in the last digits (scipy's ``boschloo_exact``, up to a relative 2e-8 lower) reaches the same
decisions; p-values within a relative ``TIE`` are one level, crossing together. With a discrete test a
threshold can exceed the α spent at its look, or α itself, when no outcome has a p between them: the
threshold is a p-value cut-off, the α a chance, and the design's chance of a crossing is what is held to α.

Above ``STATE_LIMIT`` outcomes of a component at the last look the comparisons are not enumerated jointly:
each is calibrated as one comparison at the α spent divided by their number K (a Bonferroni split), and the
size stated is K times a single comparison's, an upper bound (``Figures.exact`` is then false).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._joint import SINGLE, STATE_LIMIT, Component, Structure, advance, components, elevation, weights
from ._pvalues import TestName, p_grid
from ._spending import Spending, spent
from ._supremum import supremum

TIE = 1e-9
"""p-values within this relative distance are one level (equal in exact arithmetic, apart in the last bits)."""


class Figures(NamedTuple):
    """A sequential design's exact figures: the looks' thresholds for its comparisons together."""

    thresholds: list[float]
    """Per look, the p-value cut-off of every comparison: a comparison crosses when p < threshold."""
    cumulative: list[float]
    """Per look, the largest chance over the common pass rates that some comparison crosses at or before it
    (a certified bound; with ``exact`` false, a Bonferroni bound)."""
    looks: tuple[int, ...] = ()
    test: TestName = "boschloo"
    comparisons: Structure = SINGLE
    exact: bool = True
    """Were the comparisons enumerated together (false: each calibrated at the α spent divided by their number)?"""

    @property
    def size(self) -> float:
        """The design's size: the largest chance of a crossing at any look when the groups do not differ."""
        return self.cumulative[-1]


def _levels(values: NDArray[np.float64], tie: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(lowest, highest) value of each level of ``values``, ascending: values within a relative ``tie`` of the
    previous one join its level."""
    u = np.unique(values)
    start = np.append(0, np.nonzero(u[1:] > u[:-1] * (1 + tie))[0] + 1)
    return u[start], u[np.append(start[1:], len(u)) - 1]


def _midpoint(low: NDArray[np.float64], high: NDArray[np.float64], j: int) -> float:
    """The threshold crossing the first j levels: halfway between the j-th level's highest value and the next
    level's lowest (half the lowest when j = 0; above every value when all cross)."""
    if j == 0:
        return float(low[0]) / 2
    if j == len(low):
        return 1.0 + float(high[-1])
    return (float(high[j - 1]) + float(low[j])) / 2


class _Walk:
    """One component's paths across looks: the fraction of paths to each outcome that crossed no earlier look,
    and the Bernstein coefficients of the chance of a crossing so far."""

    def __init__(self, component: Component, test: TestName) -> None:
        self.component, self.test = component, test
        self.n = 0
        self.reach = np.ones(1)
        self.total = np.zeros(1)
        self.statistic = np.zeros(1)
        self.threshold = 0.0

    def look(self, n: int, low: NDArray[np.float64]) -> NDArray[np.float64]:
        """Move to look n; per number j of levels crossing (0 … L), the coefficients of the chance of a
        crossing by then: rows (L + 1) × (m n + 1)."""
        m = self.component.size
        if self.n:
            self.reach = advance(np.where(self.statistic < self.threshold, 0.0, self.reach), self.n, n)
            self.total = self.total @ elevation(m * self.n, m * n)
        else:
            self.reach, self.total = np.ones((n + 1,) * m), np.zeros(m * n + 1)
        self.n = n
        self.statistic = self.component.statistic(n, self.test)
        level = np.searchsorted(low, self.statistic.ravel(), side="right") - 1
        w, s = weights(n, m)
        width = m * n + 1
        rows = np.bincount(level * width + s, weights=self.reach.ravel() * w, minlength=len(low) * width)
        return np.vstack([np.zeros(width), np.cumsum(rows.reshape(len(low), width), axis=0)]) + self.total

    def cross(self, threshold: float, coefficients: NDArray[np.float64]) -> None:
        self.threshold, self.total = threshold, coefficients


def _family(rows: Sequence[NDArray[np.float64]], picks: NDArray[np.intp]) -> NDArray[np.float64]:
    """1 − Π_c (1 − sup over π of component c's chance with picks[i] levels crossing), for every pick."""
    none = np.ones(len(picks))
    for r in rows:
        upper, _ = supremum(r[picks])
        none = none * (1.0 - np.minimum(1.0, upper))
    return 1.0 - none


def _largest(rows: Sequence[NDArray[np.float64]], limit: float) -> int:
    """The most levels that may cross with the family's chance within ``limit`` (0 if none may): the chance grows
    with the levels, so a bisection, 16 candidates a round."""
    low, high = 0, len(rows[0])  # low levels are within (0 always), high are not
    while high - low > 1:
        picks = np.unique(np.linspace(low + 1, high - 1, min(16, high - low - 1)).round().astype(np.intp))
        upper = _family(rows, picks)
        within = picks[upper <= limit]
        low = max(low, int(within.max())) if len(within) else low
        beyond = picks[upper > limit]
        high = min(high, int(beyond.min())) if len(beyond) else high
    return low


def sequential_figures(looks: Sequence[int], test: TestName, spent_by: Sequence[float] | None = None,
                       thresholds: Sequence[float] | None = None, comparisons: Structure = SINGLE) -> Figures:
    """The design's figures for ``comparisons`` (default one) by enumerating their groups' outcomes across looks.
    With ``spent_by`` (the α spent by each look) the thresholds are calibrated: at each look the most p-value
    levels cross under which the chance that some comparison has crossed at or before it, maximised over the
    common pass rates, stays within the α spent by then, the threshold halfway to the next level. With
    ``thresholds`` those are evaluated."""
    parts = components(comparisons)
    if any(c.states(looks[-1]) > STATE_LIMIT for c in parts):
        return _bonferroni(looks, test, spent_by, thresholds, comparisons)
    walks = [_Walk(c, test) for c in parts]
    out = Figures([], [], tuple(looks), test, comparisons, True)
    for k, n in enumerate(looks):
        low, high = _levels(p_grid(n, n, test), TIE if thresholds is None else 0.0)
        rows = [w.look(n, low) for w in walks]
        if thresholds is None:
            assert spent_by is not None
            j = _largest(rows, spent_by[k])
            cut = _midpoint(low, high, j)
        else:
            cut = float(thresholds[k])
            j = int(np.searchsorted(low, cut, side="left"))
        for w, r in zip(walks, rows, strict=True):
            w.cross(cut, r[j])
        out.thresholds.append(cut)
        out.cumulative.append(min(1.0, float(_family(rows, np.array([j]))[0])))
    return out


def _bonferroni(looks: Sequence[int], test: TestName, spent_by: Sequence[float] | None,
                thresholds: Sequence[float] | None, comparisons: Structure) -> Figures:
    """Too many outcomes to enumerate jointly: each comparison as one, at the α spent divided by their number K;
    the chance that any crosses is at most K times one's."""
    k = len(comparisons)
    share = None if spent_by is None else [s / k for s in spent_by]
    one = sequential_figures(looks, test, spent_by=share, thresholds=thresholds)
    return Figures(one.thresholds, [min(1.0, k * c) for c in one.cumulative], tuple(looks), test, comparisons, False)


@lru_cache(maxsize=64)
def calibrated(looks: tuple[int, ...], alpha: float, spending: Spending, test: TestName,
               comparisons: Structure = SINGLE) -> Figures:
    """The exactly calibrated design of ``looks`` under ``spending`` of ``alpha`` for ``test``, held for the
    listed ``comparisons`` together (``_joint.structure`` of named pairs; default one comparison)."""
    return sequential_figures(looks, test, spent_by=[spent(n / looks[-1], alpha, spending) for n in looks],
                              comparisons=comparisons)
