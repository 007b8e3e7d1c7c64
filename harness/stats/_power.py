"""What a two-group comparison can show before it runs (X-41): exact, by enumeration of outcomes.

A comparison of two groups is a two-sided exact test (``TestName``: Boschloo's by default, or Fisher's)
on (passes, n) per group, called separable when p < α. With the n a plan runs (2, 3, 20 per group) a
normal approximation is wrong by more than the effects it would size, so every number here enumerates
the binomial outcomes (x_a, x_b) and their p (``_pvalues``, the one owner of the test):

- ``smallest_p(n_a, n_b)``: the smallest p any outcome can reach (3 vs 3: Boschloo 0.031, Fisher 0.10;
  2 vs 2: Boschloo 0.12, Fisher 0.33). At or above α no outcome, however extreme, is separable.
- ``n_separable(α)``: the n per group at which a complete difference (n/n vs 0/n) becomes separable
  (α = 0.05: Boschloo 3, Fisher 4).
- ``power(control, treatment, n_control, n_treatment, α)``: the probability that the outcome is
  separable when the groups pass at those rates, Σ over all outcomes of the two binomial
  probabilities where p < α.
- ``n_for_power(control, treatment, α, target)``: the smallest n per group whose power reaches the
  target, searched up to ``max_n``; None when it is not reached there (0.9 vs 0.3 at 80%: Boschloo 10,
  Fisher 12). Exact power is not monotone in n (a saw-tooth), so the n above it may fall a little short.
"""

from __future__ import annotations

import numpy as np

from ._pvalues import DEFAULT_TEST, TestName, p_value, rejected
from ._pvalues import smallest_p as _smallest
from ._reliability import ALPHA

MAX_N = 200
"""The largest n per group the searches try by default."""
TARGET_POWER = 0.8


def _check_n(*ns: int) -> None:
    for n in ns:
        if n < 1:
            raise ValueError(f"n per group must be at least 1, got {n}")


def _check_rate(name: str, rate: float) -> None:
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"the {name} pass rate must be between 0 and 1, got {rate:g}")


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (exclusive), got {alpha:g}")


def smallest_p(n_a: int, n_b: int | None = None, test: TestName = DEFAULT_TEST) -> float:
    """The smallest two-sided p any outcome of n_a vs n_b trials can reach (n_b defaults to n_a)."""
    n_b = n_a if n_b is None else n_b
    _check_n(n_a, n_b)
    return _smallest(n_a, n_b, test)


def complete_difference_p(n_a: int, n_b: int | None = None, test: TestName = DEFAULT_TEST) -> float:
    """The p of the most extreme outcome: every trial of one group passes, none of the other's."""
    n_b = n_a if n_b is None else n_b
    _check_n(n_a, n_b)
    return p_value(n_a, n_a, 0, n_b, test)


def n_separable(alpha: float = ALPHA, max_n: int = MAX_N, test: TestName = DEFAULT_TEST) -> int | None:
    """The smallest n per group at which n/n vs 0/n is separable (p < alpha); None above ``max_n``."""
    _check_alpha(alpha)
    return next((n for n in range(1, max_n + 1) if smallest_p(n, n, test) < alpha), None)


def _power(control: float, treatment: float, n_control: int, n_treatment: int, alpha: float, test: TestName,
           outer: bool = False) -> float:
    from scipy.stats import binom

    p_c = binom.pmf(np.arange(n_control + 1), n_control, control)
    p_t = binom.pmf(np.arange(n_treatment + 1), n_treatment, treatment)
    region = rejected(n_control, n_treatment, alpha, test, outer)
    return float(min(1.0, np.sum(np.outer(p_c, p_t) * region)))


def power(control: float, treatment: float, n_control: int, n_treatment: int | None = None,
          alpha: float = ALPHA, test: TestName = DEFAULT_TEST) -> float:
    """The probability that a comparison of n_control vs n_treatment trials is separable (p < alpha) when the
    groups pass at rates ``control`` and ``treatment``: Σ P(x_c) P(x_t) over the outcomes with p < alpha.
    Equal rates give the test's size at that rate (at most alpha)."""
    n_treatment = n_control if n_treatment is None else n_treatment
    _check_n(n_control, n_treatment)
    _check_rate("control", control)
    _check_rate("treatment", treatment)
    _check_alpha(alpha)
    return _power(control, treatment, n_control, n_treatment, alpha, test)


def n_for_power(control: float, treatment: float, alpha: float = ALPHA, target: float = TARGET_POWER,
                max_n: int = MAX_N, test: TestName = DEFAULT_TEST) -> int | None:
    """The smallest n per group (equal groups) whose exact power reaches ``target``; None when no n up to
    ``max_n`` does (equal rates never do: the test then rejects at most alpha of the time). An n whose
    power over a superset of the separable outcomes (``rejected(outer=True)``) stays below the target is
    passed over without computing its exact region."""
    _check_rate("control", control)
    _check_rate("treatment", treatment)
    _check_alpha(alpha)
    if not 0.0 < target < 1.0:
        raise ValueError(f"the target power must be between 0 and 1 (exclusive), got {target:g}")
    if control == treatment:
        return None
    first = n_separable(alpha, max_n, test)  # below it no outcome is separable: power 0
    if first is None:
        return None
    return next((n for n in range(first, max_n + 1)
                 if (test == "fisher" or _power(control, treatment, n, n, alpha, test, outer=True) >= target)
                 and _power(control, treatment, n, n, alpha, test) >= target), None)
