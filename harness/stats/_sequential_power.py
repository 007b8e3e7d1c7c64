"""A sequential design's power and expected repeats (X-41), exactly: the chance that the stage stops (every
listed comparison crosses at one look) and the repeats per group it runs on average, at given pass rates.

The outcomes are enumerated across looks per connected component of the comparisons' groups (``_joint``),
as for the design's size, but what stops the stage is a look at which *every* comparison of *every*
component crosses. A component's **pattern** is the set of looks at which all its comparisons crossed; the
stage stops at the first look in every component's pattern. So each component carries one array of path
fractions per pattern of the looks so far (a look splits each array into the outcomes where all its
comparisons cross, adding the look to the pattern, and the rest), the patterns' chances at the rates come
from the last look, and the components, independent, are combined pattern by pattern into the chance that
the first common look is k. With one component the stop is its first all-crossing look and no pattern is
kept. Above ``CELL_LIMIT`` cells of arrays the power is not computed (None).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._joint import STATE_LIMIT, Component, advance, components, effect_rates
from ._sequential import Figures

CELL_LIMIT = 10_000_000
"""The most cells of path-fraction arrays (every component, every pattern) the power enumerates."""


class Operating(NamedTuple):
    """A design at given pass rates: ``power``, the chance of a stop; ``expected``, repeats per group on average;
    ``stops``, the chance of stopping at each look."""

    power: float
    expected: float
    stops: list[float]


def _chances(component: Component, n: int, rates: Sequence[float]) -> NDArray[np.float64]:
    """[x_0, …]: the chance of each outcome of the component's groups at n repeats, at their rates."""
    from scipy.stats import binom

    out = np.ones(())
    for g in component.groups:
        out = np.multiply.outer(out, binom.pmf(np.arange(n + 1), n, rates[g]))
    return out


def stop_chances(figures: Figures, rates: Sequence[float]) -> Operating | None:
    """Power, expected repeats and the chance of a stop at each look when group g passes at ``rates[g]`` (None:
    too many cells to enumerate)."""
    looks, parts = figures.looks, components(figures.comparisons)
    if any(c.states(looks[-1]) > STATE_LIMIT for c in parts):
        return None
    single = len(parts) == 1
    stops = [0.0] * len(looks)
    patterns: list[dict[int, NDArray[np.float64]]] = [{0: np.ones((looks[0] + 1,) * c.size)} for c in parts]
    for k, (n, cut) in enumerate(zip(looks, figures.thresholds, strict=True)):
        for c, part in enumerate(parts):
            every = part.crossing(n, figures.test, cut).all(axis=0)
            split: dict[int, NDArray[np.float64]] = {}
            for pattern, reach in patterns[c].items():
                reach = advance(reach, looks[k - 1], n) if k else reach
                hit = np.where(every, reach, 0.0)
                if single:  # the stop is this component's first all-crossing look: no pattern to keep
                    stops[k] += float(np.sum(hit * _chances(part, n, rates)))
                elif hit.any():
                    split[pattern | 1 << k] = hit
                split[pattern] = reach - hit
            patterns[c] = split
        if sum(len(p) * c.states(n) for p, c in zip(patterns, parts, strict=True)) > CELL_LIMIT:
            return None
    if not single:
        common: dict[int, float] = {(1 << len(looks)) - 1: 1.0}  # the looks common to the patterns so far
        for part, arrays in zip(parts, patterns, strict=True):
            last = _chances(part, looks[-1], rates)
            chance = {pattern: float(np.sum(reach * last)) for pattern, reach in arrays.items()}
            combined: dict[int, float] = defaultdict(float)
            for looks_in, q in common.items():
                for pattern, p in chance.items():
                    combined[looks_in & pattern] += q * p
            common = combined
        for looks_in, q in common.items():
            if looks_in:
                stops[(looks_in & -looks_in).bit_length() - 1] += q  # the first common look
    before_last = sum(stops[:-1])
    expected = sum(n * q for n, q in zip(looks[:-1], stops[:-1], strict=True)) + looks[-1] * (1 - before_last)
    return Operating(min(1.0, sum(stops)), expected, stops)


def operating(figures: Figures, looks: Sequence[int], control: float, treatment: float) -> tuple[float, float]:
    """(power, expected repeats per group) when the second group of every comparison passes at ``control`` and the
    first at ``treatment`` (``_joint.effect_rates``; a ValueError when a group would need both, or the design is
    too large to enumerate)."""
    if tuple(looks) != figures.looks:
        raise ValueError(f"the figures are for looks {list(figures.looks)}, not {list(looks)}")
    found = stop_chances(figures, effect_rates(figures.comparisons, control, treatment))
    if found is None:
        raise ValueError("too many outcomes to enumerate the design's power")
    return found.power, found.expected
