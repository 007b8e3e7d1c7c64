"""The closed test of a family of comparisons (harness.stats._family) against its definition: every
intersection of the family's hypotheses enumerated and tested, the adjusted p the largest of those that
contain the comparison; Holm against its textbook step-down; the first step against the blocks' curves."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from harness.stats import Block, adjusted, first_step, p_grid
from harness.stats._family import _combined
from harness.stats._sizes import SizeCurve, bonferroni, pair_curve, star_curve


def _option(block: Block, members: list[int], p: list[float]) -> tuple[float, SizeCurve]:
    """The intersection of ``members`` within ``block``: its statistic and its curve (the module's definition)."""
    if block.kind == "triangle" and len(members) >= 2:  # any two of its pairs imply A = B = C
        return min(p[0], p[1]), block.star([0, 1])
    if block.kind == "union":
        return min(p[k] for k in members), bonferroni([block.curve(k) for k in members])
    if block.kind == "triangle":
        return p[members[0]], block.curve(members[0])
    return min(p[k] for k in members), block.star(members)


def _brute(blocks: list[Block], pvalues: list[list[float]]) -> list[list[float]]:
    comparisons = [(b, k) for b, block in enumerate(blocks) for k in range(len(block.pairs))]
    out = [list(p) for p in pvalues]
    for size in range(1, len(comparisons) + 1):
        for chosen in itertools.combinations(comparisons, size):
            per: dict[int, list[int]] = {}
            for b, k in chosen:
                per.setdefault(b, []).append(k)
            options = [_option(blocks[b], members, pvalues[b]) for b, members in per.items()]
            m = min(stat for stat, _ in options)
            p_i = _combined([curve.at(m) for _, curve in options])
            for b, k in chosen:
                out[b][k] = max(out[b][k], p_i)
    return [[min(1.0, v) for v in row] for row in out]


def _observe(block: Block, rng: random.Random) -> list[float]:
    x = [rng.randint(0, n) for n in block.ns]
    return [float(p_grid(block.ns[g], block.ns[o], block.test)[x[g], x[o]]) for g, o in block.pairs]


@pytest.mark.parametrize("test", ["boschloo", "fisher"])
def test_adjusted_p_is_the_largest_p_of_every_intersection_containing_it(test: str) -> None:
    rng = random.Random(7)
    for trial in range(60):
        n = rng.choice([3, 5, 8, 12])
        blocks = [Block("triangle", (n, n, n), ((1, 0), (2, 0), (1, 2)), test),  # type: ignore[arg-type]
                  Block("star", (n + 1, n), ((1, 0),), test)]  # type: ignore[arg-type]
        if trial % 3 == 0:
            blocks.append(Block("union", (n, n, n), ((1, 0), (2, 0), (1, 2)), test))  # type: ignore[arg-type]
        if trial % 3 == 1:
            blocks.append(Block("star", (n, n + 2, n), ((1, 0), (2, 0)), test))  # type: ignore[arg-type]
        pvalues = [_observe(b, rng) for b in blocks]
        got, want = adjusted(blocks, pvalues), _brute(blocks, pvalues)
        np.testing.assert_allclose(np.concatenate(got), np.concatenate(want), rtol=1e-9, atol=0)


def test_adjusted_p_is_never_below_the_raw_p_and_holm_never_separates_a_placement_it_does_not() -> None:
    """For the comparisons with the control the exact closed test is never weaker than Holm's; B vs C, tested
    only after A = B = C is rejected, can be (the price of not spending α on it at the first step)."""
    rng = random.Random(3)
    for _ in range(40):
        blocks = [Block("triangle", (10, 10, 10), ((1, 0), (2, 0), (1, 2)), "boschloo"),
                  Block("star", (10, 10), ((1, 0),), "boschloo")]
        pvalues = [_observe(b, rng) for b in blocks]
        exact, holm = adjusted(blocks, pvalues), adjusted(blocks, pvalues, "holm")
        for p, e in zip(itertools.chain(*pvalues), itertools.chain(*exact), strict=True):
            assert p <= e <= 1.0
        primaries = [(0, 0), (0, 1), (1, 0)]
        assert all(exact[b][k] <= holm[b][k] + 1e-12 for b, k in primaries)


def test_holm_is_the_textbook_step_down() -> None:
    blocks = [Block("star", (5, 5), ((1, 0),), "boschloo")] * 4
    pvalues = [[0.01], [0.04], [0.03], [0.005]]
    # sorted 0.005, 0.01, 0.03, 0.04: 4×0.005 = 0.02, 3×0.01 = 0.03, max(0.03, 2×0.03) = 0.06, max(0.06, 0.04)
    assert adjusted(blocks, pvalues, "holm") == [[pytest.approx(0.03)], [pytest.approx(0.06)], [pytest.approx(0.06)],
                                                 [pytest.approx(0.02)]]


def test_two_comparisons_sharing_a_control_are_held_by_a_cutoff_near_half_alpha() -> None:
    """A star of two at n = 20 and 50: the exact first step cuts at about 0.025 with a family-wise size of
    0.047–0.048, where Holm's α / 2 leaves more of α unused."""
    for n in (20, 50):
        star = Block("star", (n, n, n), ((1, 0), (2, 0)), "boschloo")
        step = first_step([star], 0.05)
        assert 0.025 < step.cutoff < 0.03 and 0.046 < step.size <= 0.05 and step.exact
        holm = first_step([star], 0.05, "holm")
        assert holm.cutoff <= step.cutoff and 0.04 < holm.size < step.size  # Holm: α / 2, discreteness wasted
        levels = star_curve(n, (n, n), "boschloo").levels
        assert not np.any((levels > step.cutoff - 1e-12) & (levels < step.cutoff + 1e-12))  # strictly between


def test_a_star_too_large_to_enumerate_is_bounded_by_bonferroni() -> None:
    big = star_curve(150, (150, 150), "boschloo")
    assert not big.exact
    one = pair_curve(150, 150, "boschloo")
    assert big.at(0.01) == pytest.approx(min(1.0, 2 * one.at(0.01)))


def test_blocks_refuse_a_shape_they_do_not_have() -> None:
    with pytest.raises(ValueError, match="star"):
        Block("star", (3, 3, 3), ((1, 0), (1, 2)), "boschloo")
    with pytest.raises(ValueError, match="triangle"):
        Block("triangle", (3, 3, 3), ((1, 0), (2, 0)), "boschloo")
    with pytest.raises(ValueError, match="n ≥ 1"):
        Block("star", (0, 3), ((1, 0),), "boschloo")
