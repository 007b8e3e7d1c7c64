"""The groups of a sequential stage's comparisons enumerated together across looks (X-41): the comparisons'
structure, its connected components, and for each component the outcomes of all its groups at a look.

A stage's listed comparisons are pairs (group, other) of its groups; here the groups are numbered 0, 1, …
(``structure`` numbers named pairs by first appearance, ``against_one_control(k)`` is k groups each compared
with group 0). Comparisons that share a group depend on each other; the graph of groups joined by
comparisons splits into connected **components** (B:A, C:A and v2:v1 give {A, B, C} and {v1, v2}), whose
outcomes are independent, and, when no group differs from another, each has its own common pass rate.

A component's outcome at a look of n repeats per group is the vector (x_g) of its groups' passes, an array
of (n + 1)^m cells for m groups (``states``). Given the total s of passes, every outcome with that total has
the chance Π C(n, x_g) / C(m n, s) whatever the common rate (``weights``), so a chance over outcomes is a
polynomial in the common rate of degree m n in Bernstein form; and given x_g passes in n trials, the passes
among the first n' < n are hypergeometric (``advance``), the same whatever the rate. Above ``STATE_LIMIT``
cells a component is not enumerated (the callers fall back to a Bonferroni split, and say so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from ._pvalues import TestName, p_grid
from ._supremum import log_choose

Structure = tuple[tuple[int, int], ...]
"""The listed comparisons as (group, other) pairs of group numbers 0, 1, …."""
SINGLE: Structure = ((1, 0),)
"""One comparison: group 1 against group 0."""
STATE_LIMIT = 2_500_000
"""The most outcomes (cells) of one component at its last look that are enumerated jointly."""


def structure(pairs: Sequence[tuple[str, str]]) -> Structure:
    """Named comparisons as group numbers, numbered by first appearance ((B, A), (C, A) → (0, 1), (2, 1));
    no pair gives ``SINGLE`` (a design needs a comparison to be calibrated for)."""
    numbers: dict[str, int] = {}
    out = tuple((numbers.setdefault(g, len(numbers)), numbers.setdefault(o, len(numbers))) for g, o in pairs)
    return out or SINGLE


def against_one_control(k: int) -> Structure:
    """k comparisons, each of a group with one control (group 0): what ``harness power --comparisons k`` means."""
    if k < 1:
        raise ValueError(f"a design needs at least one comparison, got {k}")
    return tuple((i, 0) for i in range(1, k + 1))


def both_roles(comparisons: Structure) -> list[int]:
    """The groups that are the first of one comparison and the second of another: an effect (a treatment rate
    for the first, a control rate for the second) gives them two rates."""
    first, second = {g for g, _ in comparisons}, {o for _, o in comparisons}
    return sorted(first & second)


def effect_rates(comparisons: Structure, control: float, treatment: float) -> list[float]:
    """Each group's pass rate under the effect: the second of a comparison at ``control``, the first at
    ``treatment`` (a group in neither role cannot occur)."""
    if both_roles(comparisons):
        raise ValueError(f"groups {both_roles(comparisons)} would need both rates")
    treated = {g for g, _ in comparisons}
    return [treatment if g in treated else control for g in range(1 + max(max(p) for p in comparisons))]


@dataclass(frozen=True)
class Component:
    """Groups joined by comparisons: ``groups`` (numbers in the structure), ``pairs`` (positions in ``groups``)."""

    groups: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        return len(self.groups)

    def states(self, n: int) -> int:
        return (n + 1) ** self.size

    def statistic(self, n: int, test: TestName) -> NDArray[np.float64]:
        """[x_0, …, x_{m−1}]: the smallest p of the component's comparisons at n repeats per group."""
        grid = p_grid(n, n, test)  # [x_group, x_other]
        out = np.full((n + 1,) * self.size, np.inf)
        for g, o in self.pairs:
            view = [1] * self.size
            view[g], view[o] = n + 1, n + 1
            out = np.minimum(out, (grid if g < o else grid.T).reshape(view))
        return out

    def crossing(self, n: int, test: TestName, threshold: float) -> NDArray[np.bool_]:
        """[x_0, …]: which comparisons cross (p < threshold), per comparison on a leading axis."""
        grid = p_grid(n, n, test) < threshold
        out = np.zeros((len(self.pairs), *(n + 1,) * self.size), dtype=bool)
        for k, (g, o) in enumerate(self.pairs):
            view = [1] * self.size
            view[g], view[o] = n + 1, n + 1
            out[k] = (grid if g < o else grid.T).reshape(view)
        return out


def components(comparisons: Structure) -> list[Component]:
    """The connected components of the comparisons' groups, each with its comparisons, in order of first group."""
    parent = list(range(1 + max(max(p) for p in comparisons)))

    def root(g: int) -> int:
        while parent[g] != g:
            g = parent[g]
        return g

    for g, o in comparisons:
        parent[root(g)] = root(o)
    roots = list(dict.fromkeys(root(g) for pair in comparisons for g in pair))
    out = []
    for r in roots:
        groups = tuple(sorted({g for pair in comparisons for g in pair if root(g) == r}))
        where = {g: i for i, g in enumerate(groups)}
        out.append(Component(groups, tuple((where[g], where[o]) for g, o in comparisons if root(g) == r)))
    return out


@lru_cache(maxsize=32)
def weights(n: int, m: int) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Per outcome of m groups at n each (flattened, C order): its share of the outcomes with its total s of
    passes, Π C(n, x_g) / C(m n, s), and s."""
    logw, s = np.zeros(1), np.zeros(1, dtype=np.intp)
    for _ in range(m):
        logw = (logw[:, None] + log_choose(n)[None, :]).ravel()
        s = (s[:, None] + np.arange(n + 1)[None, :]).ravel()
    return np.exp(logw - log_choose(m * n)[s]), s


@lru_cache(maxsize=64)
def _moves(before: int, after: int) -> NDArray[np.float64]:
    """[x', x]: of x' passes in ``after`` exchangeable trials, the chance that x were among the first ``before``."""
    from scipy.stats import hypergeom

    return hypergeom.pmf(np.arange(before + 1)[None, :], after, np.arange(after + 1)[:, None], before)


def advance(reach: NDArray[np.float64], before: int, after: int) -> NDArray[np.float64]:
    """Fractions of the paths to each outcome at ``before`` repeats per group, carried to ``after``: for each
    outcome there, the fraction of its paths that passed through outcomes with those fractions."""
    move = _moves(before, after)
    for axis in range(reach.ndim):
        reach = np.moveaxis(np.tensordot(move, reach, axes=(1, axis)), 0, axis)
    return reach


@lru_cache(maxsize=64)
def elevation(before: int, after: int) -> NDArray[np.float64]:
    """[i, j]: Bernstein coefficients of degree ``before`` raised to degree ``after`` (the same polynomial)."""
    from scipy.stats import hypergeom

    return hypergeom.pmf(np.arange(before + 1)[:, None], after, np.arange(after + 1)[None, :], before)
