"""An independent forward enumeration of a sequential stage at given pass rates, for the tests: the
probabilities themselves, not path fractions or polynomials. At each look the joint distribution of every
group's passes so far among the paths still running, grown to the next look by each group's binomial
increment (scipy's ``binom``) at its rate, one row per rate vector; the outcomes where the look's rule fires
are taken out and their chance recorded."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Fires = Callable[[int, int], np.ndarray]
"""(look index, n) → bool array over the groups' passes [x_0, …, x_{m−1}]: the rule fires there."""


def grow(alive: np.ndarray, before: int, after: int, rates: np.ndarray) -> np.ndarray:
    """``alive`` [row, x_0, …] at ``before`` repeats per group, grown to ``after``: group g's increment is
    Binomial(after − before, rates[row, g])."""
    from scipy.stats import binom

    step = after - before
    for g in range(alive.ndim - 1):
        inc = binom.pmf(np.arange(step + 1)[None, :], step, rates[:, g][:, None])  # [row, j]
        shape = list(alive.shape)
        shape[g + 1] = after + 1
        grown = np.zeros(shape)
        for j in range(step + 1):
            target = [slice(None)] * alive.ndim
            target[g + 1] = slice(j, j + alive.shape[g + 1])
            view = [len(rates)] + [1] * (alive.ndim - 1)
            grown[tuple(target)] += alive * inc[:, j].reshape(view)
        alive = grown
    return alive


def fire_chances(looks: Sequence[int], groups: int, rates: np.ndarray, fires: Fires) -> np.ndarray:
    """[look, row]: the chance that the rule first fires at each look, for every row of ``rates`` [row, group]."""
    alive = np.ones((len(rates), *(1,) * groups))
    before, out = 0, []
    for k, n in enumerate(looks):
        alive = grow(alive, before, n, rates)
        mask = fires(k, n)
        out.append((alive * mask).reshape(len(rates), -1).sum(axis=1))
        alive, before = np.where(mask, 0.0, alive), n
    return np.array(out)


def any_crossing(pairs: Sequence[tuple[int, int]], groups: int, p: Callable[[int], np.ndarray],
                 thresholds: Sequence[float], every: bool = False) -> Fires:
    """The rule "some comparison crosses" (``every``: every comparison crosses) at p < the look's threshold, with
    p(n)[x_group, x_other] the p-values at n per group."""
    def fires(k: int, n: int) -> np.ndarray:
        out = np.full((n + 1,) * groups, every)
        for g, o in pairs:
            view = [1] * groups
            view[g], view[o] = n + 1, n + 1
            cross = (p(n) < thresholds[k]) if g < o else (p(n) < thresholds[k]).T
            out = (out & cross.reshape(view)) if every else (out | cross.reshape(view))
        return out

    return fires
