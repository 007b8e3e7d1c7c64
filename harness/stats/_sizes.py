"""Exact size curves of a min-p statistic (X-41): for comparisons that share a control group (a *star*: the
control and k groups, each compared with it), the chance that the smallest of their two-sided p-values is at
most m when every group passes at one common rate π, maximised over π, for every m at once.

The outcomes (x_control, x_1, …, x_k) are enumerated: each has its statistic (the smallest p, from the test's
one owner, ``_pvalues.p_grid``) and, given s passes in all, the probability Π C(n_i, x_i) / C(N, s) that
the passes split that way (the same whatever π). Sorting the outcomes by statistic and adding these up per s
gives, for each value the statistic takes, the Bernstein coefficients of the chance of a statistic at most
that value; ``_supremum`` bounds its maximum over π (certified, never below it). One comparison is a star
with one group (its curve is the test's exact size at each cut-off, at most the cut-off).

Above ``ENUMERATION_LIMIT`` outcomes a star is not enumerated: its curve is the Bonferroni bound, the sum of
its comparisons' own curves (valid whatever their dependence, and never below the exact curve).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import prod

import numpy as np
from numpy.typing import NDArray

from ._pvalues import TestName, p_grid
from ._supremum import log_choose, supremum

ENUMERATION_LIMIT = 2_500_000
"""The largest number of outcomes of a star enumerated exactly (n = 134 per group for a control and two)."""
TIE = 1e-9
"""A statistic within a relative TIE above m counts as at most m: p-values equal in exact arithmetic but read
from grids of other n may differ in their last bits, and counting them in can only raise the curve."""


class SizeCurve:
    """sup over π of P(statistic ≤ m), for any m: ``at(m)``. ``exact``: enumerated (else a Bonferroni bound)."""

    def __init__(self, levels: NDArray[np.float64], rows: NDArray[np.float64] | None,
                 parts: Sequence[SizeCurve] = ()) -> None:
        self.levels = levels
        """The values the statistic takes, ascending."""
        self._rows = rows
        self._parts = tuple(parts)
        self._known: dict[int, float] = {}
        self.exact = rows is not None

    def at(self, m: float) -> float:
        return float(self.at_many(np.array([m]))[0])

    def at_many(self, ms: NDArray[np.float64]) -> NDArray[np.float64]:
        """The curve at every m of ``ms``: a certified upper bound of the largest chance, over the common pass
        rate, of a statistic at most m."""
        ms = np.asarray(ms, dtype=float)
        if self._parts:
            return np.minimum(1.0, sum((p.at_many(ms) for p in self._parts), np.zeros(len(ms))))
        index = np.searchsorted(self.levels, ms * (1 + TIE), side="right") - 1
        todo = sorted({int(i) for i in index if i >= 0 and int(i) not in self._known})
        if todo:
            assert self._rows is not None
            upper, _ = supremum(self._rows[todo])
            self._known.update(zip(todo, np.minimum(1.0, upper).tolist(), strict=True))
        return np.array([self._known[int(i)] if i >= 0 else 0.0 for i in index])


def _weights(ns: Sequence[int]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Per outcome (flattened, C order over ``ns``): its share of the outcomes with the same total s, and s."""
    total = sum(ns)
    logw = np.zeros(1)
    s = np.zeros(1, dtype=np.intp)
    for n in ns:
        logw = (logw[:, None] + log_choose(n)[None, :]).ravel()
        s = (s[:, None] + np.arange(n + 1)[None, :]).ravel()
    return np.exp(logw - log_choose(total)[s]), s


def _curve(statistic: NDArray[np.float64], ns: Sequence[int]) -> SizeCurve:
    weight, s = _weights(ns)
    levels, index = np.unique(statistic.ravel(), return_inverse=True)
    width = sum(ns) + 1
    rows = np.bincount(index * width + s, weights=weight, minlength=len(levels) * width).reshape(len(levels), width)
    return SizeCurve(levels, np.cumsum(rows, axis=0))


@lru_cache(maxsize=256)
def pairs_curve(ns: tuple[int, ...], pairs: tuple[tuple[int, int], ...], test: TestName) -> SizeCurve:
    """The size curve of min over ``pairs`` (indices into ``ns``) of their p, every group at one common rate: exact
    up to ``ENUMERATION_LIMIT`` outcomes (one pair always), else the Bonferroni bound of the pairs' exact curves."""
    if len(pairs) > 1 and prod(n + 1 for n in ns) > ENUMERATION_LIMIT:
        return bonferroni([pair_curve(ns[g], ns[o], test) for g, o in pairs])
    shape = tuple(n + 1 for n in ns)
    statistic = np.full(shape, np.inf)
    for g, o in pairs:
        view = [1] * len(shape)
        view[g], view[o] = shape[g], shape[o]
        grid = p_grid(ns[g], ns[o], test)  # [x_g, x_o]
        statistic = np.minimum(statistic, (grid if g < o else grid.T).reshape(view))
    return _curve(statistic, ns)


def star_curve(control_n: int, group_ns: tuple[int, ...], test: TestName) -> SizeCurve:
    """The size curve of min over the groups of p(group vs control), all groups at one common rate (the groups'
    order does not matter, so they are sorted: one cached curve per star)."""
    group_ns = tuple(sorted(group_ns))
    return pairs_curve((control_n, *group_ns), tuple((k, 0) for k in range(1, len(group_ns) + 1)), test)


def pair_curve(n_a: int, n_b: int, test: TestName) -> SizeCurve:
    """The exact size curve of one comparison: sup over π of P(p ≤ m)."""
    return star_curve(n_b, (n_a,), test)


def bonferroni(curves: Sequence[SizeCurve]) -> SizeCurve:
    """The sum of ``curves`` (capped at 1): a valid bound of the min-p curve of any comparisons, dependent or not."""
    if len(curves) == 1:
        return curves[0]
    levels = np.unique(np.concatenate([c.levels for c in curves]))
    return SizeCurve(levels, None, curves)
