"""Statistics of X-41 and X-52: Wilson 95%, pass^k = C(c,k)/C(n,k), two-sided Fisher exact p, p wording."""

from __future__ import annotations

import pytest

from harness.stats import fisher_p, format_p, p_text, pass_hat_k, pass_hat_ks, separable, wilson_interval


def test_x41_three_of_three_vs_none_is_p_0_10_and_not_separable() -> None:
    p = fisher_p(3, 3, 0, 3)
    assert p == pytest.approx(0.10)
    assert not separable(p)


def test_x41_fisher_is_two_sided_and_symmetric() -> None:
    assert fisher_p(0, 3, 3, 3) == pytest.approx(fisher_p(3, 3, 0, 3))
    assert fisher_p(2, 2, 2, 2) == pytest.approx(1.0)
    # 10/10 vs 0/10: p = 2 / C(20, 10)
    assert fisher_p(10, 10, 0, 10) == pytest.approx(2 / 184756)
    assert separable(fisher_p(10, 10, 0, 10))


def test_x52_wilson_interval_known_values() -> None:
    low, high = wilson_interval(3, 3)
    assert (round(low, 4), high) == (0.4385, 1.0)
    low, high = wilson_interval(0, 3)
    assert (low, round(high, 4)) == (0.0, 0.5615)
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_x52_pass_hat_k_is_without_replacement() -> None:
    assert pass_hat_k(2, 3, 1) == pytest.approx(2 / 3)
    assert pass_hat_k(2, 3, 2) == pytest.approx(1 / 3)
    assert pass_hat_k(2, 3, 3) == 0.0
    assert pass_hat_ks(3, 3) == {1: 1.0, 2: 1.0, 3: 1.0}
    assert pass_hat_k(4, 5, 2) == pytest.approx(6 / 10)


@pytest.mark.parametrize("call", [
    lambda: pass_hat_k(4, 3, 1), lambda: pass_hat_k(1, 3, 0), lambda: pass_hat_k(1, 3, 4),
    lambda: wilson_interval(-1, 3), lambda: fisher_p(1, 0, 0, 1),
])
def test_impossible_counts_are_host_defects(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(("p", "shown"), [
    (0.10000000000000002, "0.10"), (1.0, "1.0"), (0.5238, "0.52"), (0.002, "0.0020"), (0.0022, "0.0022"),
    (0.0476, "0.048"), (0.001, "0.0010"), (0.00099, "< 0.001"), (2 / 184756, "< 0.001"),
    (0.0496, "0.0496"), (0.05, "0.050"),  # never rounded across alpha: 0.0496 is separable, "0.050" would not be
])
def test_one_p_formatter_two_significant_digits(p: float, shown: str) -> None:
    """0.002 printed as "0.00" (two decimals) read as impossible; p is printed with two significant
    digits, "< 0.001" below that, and its side of 0.05 survives the rounding."""
    assert format_p(p) == shown
    assert separable(p) == (shown.startswith("<") or separable(float(shown)))
    assert p_text(p) == (f"p {shown}" if shown.startswith("<") else f"p = {shown}")
