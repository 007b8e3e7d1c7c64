"""Reliability statistics (X-41, X-52): Wilson intervals, pass^k, and how every report words a p-value.

With the plan's small n these numbers mostly say how little a single run can separate (3/3 vs 0/3:
Boschloo p = 0.031, Fisher p = 0.10); reports say so instead of ranking groups by raw pass rates.
"""

from __future__ import annotations

from math import comb, sqrt

Z_95 = 1.959963984540054
"""The 97.5th percentile of the standard normal distribution."""

ALPHA = 0.05


def wilson_interval(passes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of the pass rate; n = 0 gives the uninformative (0, 1)."""
    _check_counts(passes, n)
    if n == 0:
        return 0.0, 1.0
    p = passes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if passes == 0 else max(0.0, centre - half)  # exact ends, no rounding noise
    high = 1.0 if passes == n else min(1.0, centre + half)
    return low, high


def pass_hat_k(passes: int, n: int, k: int) -> float:
    """pass^k: the probability that k trials drawn without replacement from n all pass, C(c,k)/C(n,k)."""
    _check_counts(passes, n)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return comb(passes, k) / comb(n, k)


def pass_hat_ks(passes: int, n: int) -> dict[int, float]:
    """pass^k for every k from 1 to n (k = n is "every repeat passed", X-12)."""
    return {k: pass_hat_k(passes, n, k) for k in range(1, n + 1)}


def format_p(p_value: float, alpha: float = ALPHA) -> str:
    """A p-value as every report prints it: two significant digits ("0.10", "0.048", "0.0020"), "< 0.001"
    below 0.001, and never rounded across ``alpha`` (0.0496 prints as "0.0496", not "0.050")."""
    if p_value < 0.001:
        return "< 0.001"
    for digits in (2, 3, 4):
        text = f"{p_value:#.{digits}g}"
        if separable(float(text), alpha) == separable(p_value, alpha):
            return text
    return text


def p_text(p_value: float, alpha: float = ALPHA) -> str:
    """``p = 0.10`` / ``p = 0.0020`` / ``p < 0.001``: the p-value with its relation sign."""
    shown = format_p(p_value, alpha)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def separable(p_value: float, alpha: float = ALPHA) -> bool:
    """Two groups are called separable only when p < alpha (the plan's ``analysis.alpha``, 0.05 by default)."""
    return p_value < alpha


def verdict_text(apart: bool, alpha: float = ALPHA, adjusted: bool = False) -> str:
    """``separable (p < 0.05)`` / ``separable (adjusted p < 0.05)`` / ``not separable at this n``: how every
    comparison words its verdict, on the p it was decided on."""
    return f"separable ({'adjusted ' if adjusted else ''}p < {alpha:g})" if apart else "not separable at this n"


def adjusted_text(p_value: float, adjusted: float | None, alpha: float = ALPHA) -> str:
    """``p = 0.012, adjusted p = 0.024``: a p and, when the comparison is in an adjusted family, its adjusted p."""
    return p_text(p_value, alpha) + ("" if adjusted is None else f", adjusted {p_text(adjusted, alpha)}")


def _check_counts(passes: int, n: int) -> None:
    if n < 0 or not 0 <= passes <= n:
        raise ValueError(f"need 0 <= passes <= n, got passes={passes}, n={n}")
