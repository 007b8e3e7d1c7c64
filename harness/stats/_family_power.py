"""What K comparisons against one control can show, held at α together (X-41): the family's first-step cut-off
at n per group, each comparison's power of crossing it, and the n per group that reaches a target power.

K groups each compared with one control form a star (``_family``); its first step calls a comparison
separable whatever the others show when its p is below the cut-off. The power here is that of crossing the
first step, with the other K − 1 groups at the control's rate: a lower bound of the closed test's power (which
can also call it separable after another comparison is, at a cut-off up to α). Exact, by enumeration, where the
star's outcomes are few enough (``_sizes.ENUMERATION_LIMIT``); beyond, the Bonferroni bound holds it.
"""

from __future__ import annotations

from collections.abc import Callable

from ._family import Block, FamilyMethod, FirstStep, first_step
from ._power import MAX_N, TARGET_POWER, n_for_power, power
from ._pvalues import DEFAULT_TEST, TestName
from ._reliability import ALPHA


def star_step(n: int, comparisons: int, alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
              method: FamilyMethod = "exact") -> FirstStep:
    """The first step of ``comparisons`` groups each compared with one control, n per group."""
    if comparisons < 1:
        raise ValueError(f"the number of comparisons must be at least 1, got {comparisons}")
    block = Block("star", (n,) * (comparisons + 1), tuple((i, 0) for i in range(1, comparisons + 1)), test)
    return first_step([block], alpha, method)


def star_power(control: float, treatment: float, n: int, comparisons: int, alpha: float = ALPHA,
               test: TestName = DEFAULT_TEST, method: FamilyMethod = "exact") -> float:
    """The chance that one comparison (control vs treatment, n per group) crosses the family's first step."""
    return power(control, treatment, n, n, star_step(n, comparisons, alpha, test, method).cutoff, test)


def star_n_for_power(control: float, treatment: float, comparisons: int, alpha: float = ALPHA,
                     target: float = TARGET_POWER, max_n: int = MAX_N, test: TestName = DEFAULT_TEST,
                     method: FamilyMethod = "exact") -> int | None:
    """The smallest n per group whose first-step power reaches ``target``: searched from the n that the cut-off at
    the comparison's own n would need (the cut-off moves little with n), down while the power holds, up until it
    does; None when no n up to ``max_n`` does."""
    alone = n_for_power(control, treatment, alpha, target, max_n, test)
    if alone is None:
        return None
    guess = n_for_power(control, treatment, star_step(alone, comparisons, alpha, test, method).cutoff, target,
                        max_n, test) or max_n

    return walk_to_target(guess, lambda n: star_power(control, treatment, n, comparisons, alpha, test, method)
                          >= target, alone, max_n)


def walk_to_target(guess: int, reaches: Callable[[int], bool], floor: int, max_n: int) -> int | None:
    """From ``guess``: up until ``reaches`` (None past ``max_n``), then down while the n below still reaches, not
    below ``floor``. The search of an n per group whose cut-off moves with n, started near the answer."""
    while guess <= max_n and not reaches(guess):
        guess += 1
    if guess > max_n:
        return None
    while guess > floor and reaches(guess - 1):
        guess -= 1
    return guess
