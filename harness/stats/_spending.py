"""Lan–DeMets α spending for looks at a stage's outcomes before its last repeat (X-41).

A stage that is looked at after n_1 < n_2 < … < n_K repeats (n_K its planned repeats) may test at
each look only the α its spending function adds there, so that the chance of calling a difference
separable that is not there stays at most α over all looks. With t = n_k / n_K the information
fraction, the α spent up to t is

- O'Brien–Fleming form: 2 − 2 Φ(z_{1−α/2} / √t): almost nothing early, nearly all of α at the end;
- Pocock form: α · ln(1 + (e − 1) t): about evenly over the looks.

Both spend exactly α at t = 1. The α added at look k is spent(t_k) − spent(t_{k−1}) (spent(0) = 0),
and the added amounts sum to at most α.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import e, fsum, log, nextafter, sqrt
from typing import Literal

from ._reliability import ALPHA

Spending = Literal["obrien-fleming", "pocock"]
SPENDING: tuple[Spending, ...] = ("obrien-fleming", "pocock")


def spent(t: float, alpha: float = ALPHA, spending: Spending = "obrien-fleming") -> float:
    """The α spent up to information fraction ``t`` (0 ≤ t ≤ 1)."""
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"the information fraction must be between 0 and 1, got {t:g}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (exclusive), got {alpha:g}")
    if t == 0.0:
        return 0.0
    if t == 1.0:
        return alpha
    if spending == "pocock":
        return alpha * log(1 + (e - 1) * t)
    if spending == "obrien-fleming":
        from scipy.stats import norm

        return float(2 - 2 * norm.cdf(norm.ppf(1 - alpha / 2) / sqrt(t)))
    raise ValueError(f"unknown spending function {spending!r}; expected one of {', '.join(SPENDING)}")


def look_alphas(looks: Sequence[int], alpha: float = ALPHA, spending: Spending = "obrien-fleming") -> list[float]:
    """The α each look may test against: spent(n_k / n_K) − spent(n_{k−1} / n_K), for ascending looks
    (repeats done at each look, the last the stage's repeats). Their sum never exceeds ``alpha``."""
    if not looks or any(n < 1 for n in looks) or any(b <= a for a, b in zip(looks, looks[1:], strict=False)):
        raise ValueError(f"looks must be ascending repeat counts of at least 1, got {list(looks)}")
    last = looks[-1]
    cumulative = [spent(n / last, alpha, spending) for n in looks]
    added = [max(0.0, now - before) for before, now in zip([0.0, *cumulative], cumulative, strict=False)]
    while fsum(added) > alpha:  # rounding of the differences must not hand out more than alpha
        added[-1] = nextafter(added[-1], 0.0)
    return added

