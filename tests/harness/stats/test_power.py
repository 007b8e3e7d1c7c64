"""Exact design statistics (X-41): smallest p, complete-difference n, power and n for a power, α spending,
for both tests.

The reference numbers are computed here independently of the harness: Fisher's two-sided p from exact
rational hypergeometric probabilities (``fractions``, ``math.comb``), power from a double loop over
the binomial outcomes; Boschloo's from ``scipy.stats.boschloo_exact``."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb, fsum

import pytest

from harness.stats import (
    complete_difference_p,
    fisher_p,
    fisher_p_grid,
    look_alphas,
    n_for_power,
    n_separable,
    p_grid,
    power,
    rejected,
    smallest_p,
    spent,
)

F = "fisher"


@cache
def _reference_p(x_a: int, n_a: int, x_b: int, n_b: int) -> Fraction:
    """Two-sided Fisher p in exact arithmetic: the tables (same margins) no more probable than the observed."""
    s, total = x_a + x_b, n_a + n_b

    def prob(x: int) -> Fraction:
        return Fraction(comb(n_a, x) * comb(n_b, s - x), comb(total, s))

    observed = prob(x_a)
    return sum((q for x in range(max(0, s - n_b), min(n_a, s) + 1) if (q := prob(x)) <= observed), Fraction(0))


def _reference_power(p_c: float, p_t: float, n: int, alpha: float) -> float:
    def binom(x: int, rate: float) -> float:
        return comb(n, x) * rate**x * (1 - rate) ** (n - x)

    return fsum(binom(a, p_c) * binom(b, p_t) for a in range(n + 1) for b in range(n + 1)
                if _reference_p(a, n, b, n) < Fraction(alpha))


@pytest.mark.parametrize("n_a, n_b", [(1, 1), (2, 2), (3, 3), (4, 4), (3, 5), (7, 2), (12, 12), (9, 13)])
def test_grid_is_fisher_p_on_every_table(n_a: int, n_b: int) -> None:
    grid = fisher_p_grid(n_a, n_b)
    for x_a in range(n_a + 1):
        for x_b in range(n_b + 1):
            one = fisher_p(x_a, n_a, x_b, n_b)
            assert grid[x_a, x_b] == pytest.approx(one, rel=1e-12, abs=0)
            assert one == pytest.approx(float(_reference_p(x_a, n_a, x_b, n_b)), rel=1e-12)
    assert not grid.flags.writeable


def test_smallest_p_known_values() -> None:
    assert smallest_p(3, test=F) == pytest.approx(0.1)  # 3/3 vs 0/3 (the fixed plan's simple stage)
    assert smallest_p(2, test=F) == pytest.approx(1 / 3)  # 2/2 vs 0/2 (tool_continuation, conversation)
    assert smallest_p(4, test=F) == pytest.approx(2 / 70)
    assert smallest_p(1, test=F) == 1.0
    assert smallest_p(3, 5, test=F) == pytest.approx(1 / comb(8, 3))  # unequal n: 3/3 vs 0/5
    assert smallest_p(20, test=F) == pytest.approx(2 / comb(40, 20))
    # Boschloo: twice the largest chance over π of the most extreme one-sided region
    assert smallest_p(3) == pytest.approx(2 * 0.5**6, rel=1e-6)  # 3/3 vs 0/3: 0.031
    assert smallest_p(2) == pytest.approx(2 * 0.5**4, rel=1e-6)  # 2/2 vs 0/2: 0.125
    assert smallest_p(1) == pytest.approx(0.5)  # scipy's boschloo_exact: 1/1 vs 0/1 is p = 0.5


@pytest.mark.parametrize("n_a, n_b", [(2, 2), (3, 3), (2, 5), (6, 4), (8, 8)])
def test_smallest_p_is_the_minimum_over_all_outcomes(n_a: int, n_b: int) -> None:
    everything = min(_reference_p(a, n_a, b, n_b) for a in range(n_a + 1) for b in range(n_b + 1))
    assert smallest_p(n_a, n_b, test=F) == pytest.approx(float(everything), rel=1e-12)
    assert complete_difference_p(n_a, n_b, test=F) == pytest.approx(float(everything), rel=1e-12)
    assert smallest_p(n_a, n_b) == float(p_grid(n_a, n_b).min())
    assert complete_difference_p(n_a, n_b) == pytest.approx(smallest_p(n_a, n_b), rel=1e-12)  # n_a/n_a vs 0/n_b


def test_complete_difference_separable_at_four_per_group_fisher_three_boschloo() -> None:
    assert n_separable(0.05, test=F) == 4
    assert complete_difference_p(4, test=F) == pytest.approx(0.0286, abs=1e-4)  # 4/4 vs 0/4
    assert complete_difference_p(3, test=F) == pytest.approx(0.1)
    assert n_separable(0.01, test=F) == 5  # 2 / C(10, 5) = 0.0079
    assert n_separable(1e-12, max_n=10, test=F) is None
    assert n_separable(0.05) == 3 and complete_difference_p(3) < 0.05 <= complete_difference_p(2)


def test_power_matches_brute_force() -> None:
    for n in (3, 4, 5, 8, 12):
        assert power(0.9, 0.3, n, test=F) == pytest.approx(_reference_power(0.9, 0.3, n, 0.05), rel=1e-9, abs=1e-15)
    assert power(0.9, 0.3, 3, test=F) == 0.0  # no outcome at n = 3 is separable
    assert power(0.3, 0.9, 12, test=F) == pytest.approx(power(0.9, 0.3, 12, test=F))  # two-sided: symmetric
    assert power(1.0, 0.0, 4, test=F) == pytest.approx(1.0)  # 4/4 vs 0/4 for sure, p = 0.029
    assert power(0.5, 0.5, 20, test=F) <= 0.05  # no difference: the test's size
    assert power(1.0, 0.0, 3) == pytest.approx(1.0)  # Boschloo: 3/3 vs 0/3, p = 0.031
    for rate in (0.1, 0.5, 0.8):  # Boschloo keeps the size at alpha
        assert power(rate, rate, 20) <= 0.05


def test_with_equal_groups_boschloo_separates_everything_fisher_does() -> None:
    """Equal n per group (the planned designs): every outcome Fisher's test calls separable, Boschloo's does
    too, so it is never less powerful. With unequal groups scipy's two-sided Boschloo (twice the smaller
    one-sided p) can miss an outcome Fisher's two-sided test (the less probable tables on both sides) takes."""
    for n in range(1, 26):
        assert not (rejected(n, n, 0.05, F) & ~rejected(n, n, 0.05)).any(), n
    assert power(0.9, 0.3, 10) >= power(0.9, 0.3, 10, test=F)
    assert (rejected(7, 11, 0.05, F) & ~rejected(7, 11, 0.05)).sum() == 2


def test_bisected_region_is_the_grid_region() -> None:
    """Above 20 per group the separable outcomes come by bisection over the regions, without every p-value;
    a superset (``outer``) is what rules an n out."""
    for n_a, n_b in ((25, 25), (22, 30)):
        grid = p_grid(n_a, n_b) < 0.05
        assert (rejected(n_a, n_b, 0.05) == grid).all()
        assert (rejected(n_a, n_b, 0.05, outer=True) >= grid).all()


def test_n_for_power_ninety_vs_thirty() -> None:
    reference = [_reference_power(0.9, 0.3, n, 0.05) for n in range(1, 13)]
    first = next(n for n, p in enumerate(reference, start=1) if p >= 0.8)
    assert first == 12 == n_for_power(0.9, 0.3, alpha=0.05, target=0.8, test=F)
    assert power(0.9, 0.3, 12, test=F) == pytest.approx(0.8262, abs=1e-4)
    assert power(0.9, 0.3, 5, test=F) > power(0.9, 0.3, 6, test=F)  # the saw-tooth of exact power
    boschloo = [power(0.9, 0.3, n) for n in range(1, 11)]
    assert n_for_power(0.9, 0.3) == 10 == next(n for n, p in enumerate(boschloo, start=1) if p >= 0.8)


def test_n_for_power_not_reached() -> None:
    assert n_for_power(0.5, 0.5) is None
    assert n_for_power(0.9, 0.8, max_n=20) is None
    assert n_for_power(0.9, 0.8, max_n=20, test=F) is None
    assert n_for_power(1.0, 0.0, test=F) == 4
    assert n_for_power(1.0, 0.0) == 3


@pytest.mark.parametrize("call", [
    lambda: power(1.2, 0.3, 3), lambda: power(0.9, -0.1, 3), lambda: power(0.9, 0.3, 0),
    lambda: smallest_p(0), lambda: n_separable(0.0), lambda: n_for_power(0.9, 0.3, target=1.0),
    lambda: p_grid(3, 3, "barnard"),  # type: ignore[arg-type]
])
def test_bad_arguments_are_refused(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


def test_spending_known_values() -> None:
    assert spent(0.5, 0.05, "obrien-fleming") == pytest.approx(0.005575, abs=1e-6)
    assert spent(0.2, 0.05, "obrien-fleming") == pytest.approx(1.17e-5, rel=1e-2)
    assert spent(0.5, 0.05, "pocock") == pytest.approx(0.05 * 0.620115, rel=1e-5)
    for spending in ("obrien-fleming", "pocock"):
        assert spent(0.0, 0.05, spending) == 0.0  # type: ignore[arg-type]
        assert spent(1.0, 0.05, spending) == 0.05  # type: ignore[arg-type]


@pytest.mark.parametrize("spending", ["obrien-fleming", "pocock"])
@pytest.mark.parametrize("looks", [[4, 8, 12, 16, 20], [20], [1, 2, 3], [5, 7, 30, 31, 100]])
def test_look_alphas_add_up_to_at_most_alpha(spending: str, looks: list[int]) -> None:
    added = look_alphas(looks, 0.05, spending)  # type: ignore[arg-type]
    assert len(added) == len(looks) and all(a >= 0 for a in added)
    assert fsum(added) <= 0.05
    assert fsum(added) == pytest.approx(0.05)
    cumulative = [fsum(added[: k + 1]) for k in range(len(looks))]
    assert cumulative == pytest.approx([spent(n / looks[-1], 0.05, spending) for n in looks])  # type: ignore[arg-type]


def test_obrien_fleming_spends_late_and_pocock_evenly() -> None:
    obf, pocock = look_alphas([4, 8, 12, 16, 20]), look_alphas([4, 8, 12, 16, 20], spending="pocock")
    assert obf[0] < 1e-4 and obf == sorted(obf)
    assert pocock == sorted(pocock, reverse=True) and pocock[0] < 3 * pocock[-1]


@pytest.mark.parametrize("looks", [[], [8, 4], [4, 4], [0, 4]])
def test_look_alphas_refuse_bad_looks(looks: list[int]) -> None:
    with pytest.raises(ValueError):
        look_alphas(looks)
