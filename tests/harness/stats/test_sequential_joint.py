"""A sequential design calibrated for several comparisons together (X-41), against brute force.

The calibration is checked against every path of the groups' outcomes at small looks: each sequence of
increments, its probability at the common rate written out as a product of binomial terms, the first look at
which any comparison crosses read off the path, maximised over a fine grid of the rate. Components (groups not
shared) are independent with free rates, so the family's chance is 1 − Π (1 − max_c). The power (a stop:
every comparison crossing at one look) is checked against a forward enumeration of every group at once
(``_forward``), not component by component."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from harness.stats import (
    against_one_control,
    both_roles,
    calibrated,
    effect_rates,
    operating,
    p_grid,
    sequential_figures,
    spent,
    stop_chances,
    structure,
)
from tests.harness.stats._forward import any_crossing, fire_chances

RATES = np.linspace(0.0, 1.0, 2001)
DEFAULT = structure([("B", "A"), ("C", "A"), ("v2", "v1")])  # A=1, B=0, C=2, v1=4, v2=3


def _paths(looks: tuple[int, ...], groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Every path: ([path, look, group] passes so far, [path] the product of the increments' binomial
    coefficients, so that the path's chance at rate π is that times π^S (1 − π)^(m n_K − S))."""
    steps = np.diff((0, *looks))
    per_look = [np.array(list(itertools.product(range(d + 1), repeat=groups))) for d in steps]
    pick = np.indices([len(choices) for choices in per_look]).reshape(len(looks), -1).T  # [path, look]
    inc = np.stack([choices[pick[:, k]] for k, choices in enumerate(per_look)], axis=1)  # [path, look, group]
    coefficient = [np.array([comb(int(d), i) for i in range(int(d) + 1)], dtype=float) for d in steps]
    weight = np.prod([coefficient[k][inc[:, k, :]].prod(axis=1) for k in range(len(looks))], axis=0)
    return np.cumsum(inc, axis=1), weight


def _brute(looks: tuple[int, ...], pairs: list[tuple[int, int]], groups: int, thresholds: list[float]) -> np.ndarray:
    """[look]: max over the rate grid of the chance that some comparison has crossed by that look."""
    counts, weight = _paths(looks, groups)
    first = np.full(len(counts), len(looks))
    for k in reversed(range(len(looks))):
        grid = p_grid(looks[k], looks[k])
        crossed = np.zeros(len(counts), dtype=bool)
        for g, o in pairs:
            crossed |= grid[counts[:, k, g], counts[:, k, o]] < thresholds[k]
        first = np.where(crossed, k, first)
    total, top = counts[:, -1, :].sum(axis=1), groups * looks[-1]
    powers = RATES[None, :] ** np.arange(top + 1)[:, None] * (1 - RATES[None, :]) ** (top - np.arange(top + 1))[:, None]
    by_look = [np.bincount(total[first <= k], weights=weight[first <= k], minlength=top + 1) for k in range(len(looks))]
    return np.array([(row @ powers).max() for row in by_look])


def _family(looks: tuple[int, ...], comparisons: tuple[tuple[int, int], ...], thresholds: list[float]) -> np.ndarray:
    """The family's chance by each look: components brute-forced apart, combined as independent."""
    groups = sorted({g for pair in comparisons for g in pair})
    parts: list[set[int]] = []
    for g, o in comparisons:
        joined = [p for p in parts if g in p or o in p]
        parts = [p for p in parts if p not in joined] + [set().union(*joined, {g, o})]
    none = np.ones(len(looks))
    for part in parts:
        local = {g: i for i, g in enumerate(sorted(part))}
        pairs = [(local[g], local[o]) for g, o in comparisons if g in part]
        none *= 1 - _brute(looks, pairs, len(part), thresholds)
    assert sorted(set().union(*parts)) == groups
    return 1 - none


CASES = [((2, 4, 6), 0.2, "pocock", against_one_control(2)), ((2, 4, 6), 0.2, "obrien-fleming", against_one_control(2)),
         ((2, 4, 6), 0.2, "pocock", ((1, 0), (2, 0), (4, 3))), ((3, 6), 0.1, "pocock", against_one_control(2)),
         ((2, 4, 6), 0.2, "pocock", against_one_control(3))]


@pytest.mark.parametrize("looks, alpha, spending, comparisons", CASES)
def test_joint_calibration_against_every_path(looks: tuple[int, ...], alpha: float, spending: str,
                                              comparisons: tuple[tuple[int, int], ...]) -> None:
    design = calibrated(looks, alpha, spending, "boschloo", comparisons)  # type: ignore[arg-type]
    spent_by = [spent(n / looks[-1], alpha, spending) for n in looks]  # type: ignore[arg-type]
    seen = _family(looks, comparisons, design.thresholds)
    for k, n in enumerate(looks):
        assert seen[k] <= design.cumulative[k] <= seen[k] + 1e-6  # certified, and close
        assert design.cumulative[k] <= spent_by[k]
        levels = np.unique(p_grid(n, n))
        below, above = levels[levels < design.thresholds[k]], levels[levels > design.thresholds[k]]
        assert len(below) == 0 or design.thresholds[k] == pytest.approx((below[-1] + above[0]) / 2, rel=1e-12)
        if len(above) == 0:
            continue
        # the most it may cross: one level more and the chance by this look exceeds the α spent
        looser = [*design.thresholds[:k], float(above[1] if len(above) > 1 else 2.0), *design.thresholds[k + 1:]]
        assert _family(looks, comparisons, looser)[k] > spent_by[k] * (1 - 1e-6), (k, design.thresholds[k])
    single = calibrated(looks, alpha, spending, "boschloo")  # type: ignore[arg-type]
    assert all(j <= s for j, s in zip(design.thresholds, single.thresholds, strict=True))  # never looser


def test_one_comparison_is_the_pair_design_and_numbering_does_not_matter() -> None:
    looks = (4, 8, 12, 16, 20)
    one = calibrated(looks, 0.05, "obrien-fleming", "boschloo")
    assert structure([("B", "A")]) == ((0, 1),)
    assert sequential_figures(looks, "boschloo", spent_by=[spent(n / 20) for n in looks],
                              comparisons=((0, 1),)).thresholds == one.thresholds
    pair = calibrated(looks, 0.05, "obrien-fleming", "boschloo", structure([("B", "A"), ("C", "A")]))
    same = calibrated(looks, 0.05, "obrien-fleming", "boschloo", ((1, 0), (2, 0)))
    assert pair.thresholds == same.thresholds and pair.cumulative == pytest.approx(same.cumulative, rel=1e-12)


def _stops(looks: tuple[int, ...], comparisons: tuple[tuple[int, int], ...], thresholds: list[float],
           rates: list[float]) -> np.ndarray:
    groups = 1 + max(max(p) for p in comparisons)
    fires = any_crossing(comparisons, groups, lambda n: np.asarray(p_grid(n, n)), thresholds, every=True)
    return fire_chances(looks, groups, np.array([rates]), fires)[:, 0]


@pytest.mark.parametrize("looks, comparisons, rates", [
    ((2, 4, 6), DEFAULT, [0.2, 0.8, 0.1, 0.15, 0.9]),
    ((3, 6, 9), ((1, 0), (2, 0)), [0.9, 0.2, 0.15]),
    ((2, 4, 6, 8), ((1, 0), (3, 2)), [0.1, 0.9, 0.85, 0.05]),
])
def test_power_and_expected_repeats_against_every_group_at_once(looks: tuple[int, ...],
                                                                comparisons: tuple[tuple[int, int], ...],
                                                                rates: list[float]) -> None:
    design = calibrated(looks, 0.2, "pocock", "boschloo", comparisons)
    found = stop_chances(design, rates)
    assert found is not None
    stops = _stops(looks, comparisons, design.thresholds, rates)
    assert stops.sum() > 0.05 and (stops > 1e-6).sum() >= 2  # the case stops now and then, at more than one look
    assert found.stops == pytest.approx(stops.tolist(), rel=1e-9, abs=1e-15)
    expected = sum(n * q for n, q in zip(looks[:-1], stops[:-1], strict=True)) + looks[-1] * (1 - stops[:-1].sum())
    assert (found.power, found.expected) == pytest.approx((stops.sum(), expected), rel=1e-9)


def test_the_effect_sets_one_rate_per_group_or_none() -> None:
    assert effect_rates(DEFAULT, 0.8, 0.3) == [0.3, 0.8, 0.3, 0.3, 0.8]  # B, A, C, v2, v1
    chain = structure([("B", "A"), ("A", "C")])
    assert both_roles(chain) == [1]
    design = calibrated((4, 8), 0.05, "pocock", "boschloo", chain)
    with pytest.raises(ValueError, match="both rates"):
        operating(design, (4, 8), 0.8, 0.3)


def test_too_many_outcomes_fall_back_to_a_bonferroni_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the limit of one component's outcomes the comparisons are calibrated one by one at the α spent
    divided by their number; the size stated is that many times one's (an upper bound), and no power."""
    from harness.analysis import design_text, sequential_design
    from harness.stats import _sequential, _sequential_power

    looks = (4, 8, 12, 16, 20)
    monkeypatch.setattr(_sequential, "STATE_LIMIT", 21 ** 2)  # two groups at 20: yes; three: no
    monkeypatch.setattr(_sequential_power, "STATE_LIMIT", 21 ** 2)
    calibrated.cache_clear()
    try:
        split = calibrated(looks, 0.05, "obrien-fleming", "boschloo", ((1, 0), (2, 0)))
        half = sequential_figures(looks, "boschloo", spent_by=[spent(n / 20) / 2 for n in looks])
        assert not split.exact and split.thresholds == half.thresholds
        assert split.cumulative == [2 * c for c in half.cumulative] and split.size <= 0.05
        assert stop_chances(split, [0.8, 0.3, 0.3]) is None
        assert calibrated(looks, 0.05, "obrien-fleming", "boschloo").exact  # one comparison: two groups
        design = sequential_design(looks, "obrien-fleming", 0.05, "boschloo", [("B", "A"), ("C", "A")])
        assert design.calibration == "bonferroni" and design.together == 2
        assert "by a Bonferroni split" in design_text(design)
        assert "size of the 2 comparisons together at most" in design_text(design)
    finally:
        calibrated.cache_clear()
