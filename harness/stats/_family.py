"""A family of comparisons held at α together (X-41): family-adjusted p-values by an exact closed test, its
first-step cut-off and family-wise size, and Holm's adjustment (the floor, and the fallback).

A report makes several claims of difference at once. The family is every comparison they can rest on; the
chance of *any* false claim in it is held at α. The family comes in **blocks**: the comparisons of one
stage (on one model) among groups no other block shares, so blocks are independent. A block is

- a ``star``: groups compared with one control (B vs A, C vs A; or v2 vs v1 alone);
- a ``triangle``: B vs A and C vs A, and B vs C tested only after the block's global null (A = B = C) is
  rejected by the first two (the placements against the placement control first, then between them);
- a ``union``: any comparisons (the ten pairs of five groups), bounded by Bonferroni within the block.

**The closed test.** Every intersection of the family's null hypotheses is tested at α, and a comparison is
separable when every intersection that contains it is rejected (Marcus, Peritz and Gabriel, 1976): the
family-wise error is then at most α whatever is true. An intersection I is tested by the smallest p-value of
its comparisons, m_I, against its exact null distribution: within a block, the chance of a statistic at
most m when the groups I makes equal pass at one common rate, maximised over that rate (``_sizes``); blocks
are independent and their rates free, so p_I = 1 − Π (1 − G_b(m_I)). A star's intersections are its sub-
stars (a larger one has the larger curve); a triangle's are each pair and the global null, which any two of
its pairs imply and which is tested by min(p_BA, p_CA); a union's curve is the sum of its pairs' curves.
The adjusted p of a comparison is the largest p_I over the intersections that contain it (never below its own
p): it is separable at α when its adjusted p < α. Over the candidate values of m (the observed p-values) the
largest p_I is found block by block, each taking the eligible intersection (every statistic ≥ m) with the
largest curve, so no subset is enumerated.

**The first step.** Every comparison whose p is below the family's cut-off is separable whatever the others
show: the cut-off lies halfway between the largest p-value level ℓ at which the whole family's curve stays
below α and the next one, and the family-wise size is that curve at ℓ (exact where every block was
enumerated; an upper bound otherwise). A reader's own p-values (scipy's included, a relative 2e-8 off) fall
on the same side of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from ._pvalues import TestName
from ._sizes import SizeCurve, bonferroni, pair_curve, pairs_curve, star_curve

BlockKind = Literal["star", "triangle", "union"]
FamilyMethod = Literal["exact", "holm"]
FAMILY_METHODS: tuple[FamilyMethod, ...] = ("exact", "holm")
METHOD_TITLES = {"exact": "exact closed test", "holm": "Holm"}


@dataclass(frozen=True)
class Block:
    """Comparisons among groups whose trials no other block shares. ``ns``: trials (or independent samples)
    per group, the control first for a star or a triangle; ``pairs``: (group, other) indices, one per
    comparison (a star: (i, 0) for i ≥ 1; a triangle: (1, 0), (2, 0), (1, 2))."""

    kind: BlockKind
    ns: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    test: TestName

    def __post_init__(self) -> None:
        if any(n < 1 for n in self.ns):
            raise ValueError(f"every group of a block needs n ≥ 1, got {self.ns}")
        if self.kind == "star" and (not self.pairs or sorted(self.pairs) != [(i, 0) for i in range(1, len(self.ns))]):
            raise ValueError(f"a star compares every group with group 0 once, got {self.pairs}")
        if self.kind == "triangle" and (len(self.ns) != 3 or self.pairs != ((1, 0), (2, 0), (1, 2))):
            raise ValueError(f"a triangle is (1, 0), (2, 0), (1, 2) over three groups, got {self.pairs}")
        if self.kind == "union" and len(set(map(frozenset, self.pairs))) != len(self.pairs):
            raise ValueError(f"a union's comparisons must be distinct pairs, got {self.pairs}")

    def curve(self, k: int) -> SizeCurve:
        """Comparison k's own exact size curve."""
        g, o = self.pairs[k]
        return pair_curve(self.ns[g], self.ns[o], self.test)

    def star(self, members: Sequence[int]) -> SizeCurve:
        """The curve of the sub-star of a star or triangle made of comparisons ``members`` (against group 0)."""
        return star_curve(self.ns[0], tuple(self.ns[self.pairs[k][0]] for k in members), self.test)

    @cached_property
    def whole(self) -> SizeCurve:
        """The largest curve of any of the block's intersections (what the first step is tested with)."""
        if self.kind == "star":
            return self.star(range(len(self.pairs)))
        if self.kind == "union":
            return bonferroni([self.curve(k) for k in range(len(self.pairs))])
        return _Larger(self.star([0, 1]), self.curve(2))

    @property
    def exact(self) -> bool:
        """Is every curve of the block enumerated (not a Bonferroni bound)?"""
        return self.kind != "union" and self.whole.exact

    def best(self, m: float, p: Sequence[float], must: int | None) -> float | None:
        """The largest curve at m of the block's intersections whose statistic is at least m and that contain
        comparison ``must`` (None: any, 0.0 when none is eligible); None when none containing it is."""
        if must is not None and self.kind != "triangle" and p[must] < m:
            return None
        if self.kind == "star":
            eligible = [k for k in range(len(self.pairs)) if p[k] >= m]
            return self.star(eligible).at(m) if eligible else 0.0
        if self.kind == "union":
            eligible = [k for k in range(len(self.pairs)) if p[k] >= m]
            return bonferroni([self.curve(k) for k in eligible]).at(m) if eligible else 0.0
        options = [({0}, p[0], lambda: self.curve(0)), ({1}, p[1], lambda: self.curve(1)),
                   ({2}, p[2], lambda: self.curve(2)), ({0, 1, 2}, min(p[0], p[1]), lambda: self.star([0, 1]))]
        found = [curve().at(m) for members, stat, curve in options
                 if stat >= m and (must is None or must in members)]
        if not found:
            return None if must is not None else 0.0
        return max(found)


class _Larger(SizeCurve):
    """The larger of two curves at every m."""

    def __init__(self, a: SizeCurve, b: SizeCurve) -> None:
        super().__init__(np.union1d(a.levels, b.levels), None)
        self._pair = (a, b)
        self.exact = a.exact and b.exact

    def at_many(self, ms: np.ndarray) -> np.ndarray:
        a, b = self._pair
        return np.maximum(a.at_many(ms), b.at_many(ms))


def _combined(values: Sequence[float]) -> float:
    """1 − Π (1 − G_b): the chance that any of independent blocks crosses."""
    return 1.0 - float(np.prod([1.0 - v for v in values]))


def closed_adjusted(blocks: Sequence[Block], pvalues: Sequence[Sequence[float]]) -> list[list[float]]:
    """Each comparison's adjusted p by the exact closed test: ``pvalues[b][k]`` is comparison k of block b."""
    if len(blocks) != len(pvalues) or any(len(b.pairs) != len(p) for b, p in zip(blocks, pvalues, strict=True)):
        raise ValueError("one p-value per comparison of every block")
    candidates = sorted({float(v) for p in pvalues for v in p})
    # each block's largest eligible curve at each candidate m, whatever it contains: what the other blocks add
    free = {m: [block.best(m, p, None) or 0.0 for block, p in zip(blocks, pvalues, strict=True)] for m in candidates}
    out: list[list[float]] = []
    for b, (block, p) in enumerate(zip(blocks, pvalues, strict=True)):
        row = []
        for k in range(len(block.pairs)):
            largest = float(p[k])
            for m in candidates:
                own = block.best(m, p, k)
                if own is not None:
                    largest = max(largest, _combined([own, *free[m][:b], *free[m][b + 1:]]))
            row.append(min(1.0, largest))
        out.append(row)
    return out


def holm_adjusted(pvalues: Sequence[Sequence[float]]) -> list[list[float]]:
    """Holm's step-down adjusted p-values over every comparison of the family: the k-th smallest of K is
    max over j ≤ k of (K − j + 1) p_(j), capped at 1 (what ``statsmodels``' ``multipletests(method="holm")``
    gives)."""
    flat = [(float(v), b, k) for b, p in enumerate(pvalues) for k, v in enumerate(p)]
    order = sorted(range(len(flat)), key=lambda i: flat[i][0])
    out = [[0.0] * len(p) for p in pvalues]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(flat) - rank) * flat[i][0]))
        out[flat[i][1]][flat[i][2]] = running
    return out


def adjusted(blocks: Sequence[Block], pvalues: Sequence[Sequence[float]],
             method: FamilyMethod = "exact") -> list[list[float]]:
    """The family-adjusted p of every comparison (``pvalues[b][k]``: comparison k of block b)."""
    if method == "holm":
        return holm_adjusted(pvalues)
    if method == "exact":
        return closed_adjusted(blocks, pvalues)
    raise ValueError(f"unknown family method {method!r}; expected one of {', '.join(FAMILY_METHODS)}")


@dataclass(frozen=True)
class FirstStep:
    """What the family can call separable before anything else: p < ``cutoff`` (see the module)."""

    cutoff: float
    """Halfway between the largest p-value level the family's first step rejects and the next."""
    size: float
    """The family-wise size at the cut-off: the largest chance, over the common pass rates, that any comparison
    crosses the first step when no group differs from another in its block (exact, or an upper bound)."""
    exact: bool
    comparisons: int


def first_step(blocks: Sequence[Block], alpha: float, method: FamilyMethod = "exact") -> FirstStep:
    """The family's first-step cut-off and size at ``alpha``: for ``exact`` the largest level at which the
    family's curve stays below α, for ``holm`` the largest p-value level below α / K; either way the size is
    the family's curve there (the exact chance of any first-step crossing where every block was enumerated)."""
    count = sum(len(b.pairs) for b in blocks)
    # Holm's first step is crossed by any comparison: each block's curve is its min-p over all its pairs
    curves = [pairs_curve(b.ns, b.pairs, b.test) if method == "holm" else b.whole for b in blocks]
    levels = np.unique(np.concatenate([c.levels for c in curves]))

    def family(at: np.ndarray) -> np.ndarray:
        return 1.0 - np.prod([1.0 - c.at_many(at) for c in curves], axis=0)

    exact = all(c.exact for c in curves) if method == "holm" else all(b.exact for b in blocks)
    if method == "holm":
        below = levels[levels < alpha / count]
        ell = float(below.max()) if len(below) else None
        size = float(family(np.array([ell]))[0]) if ell is not None else 0.0
        return FirstStep(_midpoint(levels, ell, alpha / count), size, exact, count)
    levels = levels[levels < alpha]  # a comparison is never separable at p ≥ α, whatever its size
    if not len(levels):
        return FirstStep(alpha, 0.0, exact, count)
    low, high = -1, len(levels)  # family(levels[low]) < alpha (-1: none known), family(levels[high]) >= alpha
    while high - low > 1:
        picks = np.unique(np.linspace(low + 1, high - 1, min(16, high - low - 1)).round().astype(int))
        values = family(levels[picks])
        below = picks[values < alpha]
        low = max(low, int(below.max())) if len(below) else low
        above = picks[values >= alpha]
        high = min(high, int(above.min())) if len(above) else high
    ell = float(levels[low]) if low >= 0 else None
    size = float(family(np.array([ell]))[0]) if ell is not None else 0.0
    return FirstStep(_midpoint(levels, ell, alpha), size, exact, count)


def _midpoint(levels: np.ndarray, ell: float | None, alpha: float) -> float:
    """Halfway between ``ell`` (None: below every level) and the next level above it, or α if that is nearer: so
    the cut-off lies strictly between the p-values that cross and those that do not, and below α."""
    if ell is None:
        return float(levels[0]) / 2 if len(levels) else alpha
    above = levels[levels > ell]
    return (ell + min(float(above[0]), alpha)) / 2 if len(above) else (ell + alpha) / 2
