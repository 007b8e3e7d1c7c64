"""A reader recomputes a stated sequential design (X-41) with scipy: every table's Boschloo p from
``scipy.stats.boschloo_exact`` (two-sided: twice the smaller one-sided p, as the harness's, checked in
``test_boschloo``; the groups are the table's columns), the stated thresholds applied as stated ("p <
threshold"), and the design's size found by enumerating the groups' outcomes across looks at each common pass
rate of a grid (``_forward``), components apart and combined as independent. It must be at most α, and the
reader's p-values must fall on the same side of every threshold as the harness's.

scipy's p is computed once per table up to the test's symmetries (swapping the groups; reading passes as
failures), a few seconds."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from harness.stats import calibrated, p_grid, structure
from tests.harness.stats._forward import any_crossing, fire_chances

LOOKS = (4, 8, 12, 16, 20)
ALPHA = 0.05
DESIGNS = {"one": [("B", "A")], "B:A, C:A": [("B", "A"), ("C", "A")],
           "B:A, C:A, v2:v1": [("B", "A"), ("C", "A"), ("v2", "v1")]}


@cache
def _scipy(n: int) -> np.ndarray:
    """[x_a, x_b]: scipy's two-sided Boschloo p of x_a/n vs x_b/n."""
    from scipy.stats import boschloo_exact

    out = np.full((n + 1, n + 1), np.nan)
    for a in range(n + 1):
        for b in range(n + 1):
            if np.isnan(out[a, b]):
                p = float(boschloo_exact([[a, b], [n - a, n - b]], alternative="two-sided").pvalue)
                out[a, b] = out[b, a] = out[n - a, n - b] = out[n - b, n - a] = p
    return out


def _size(pairs: list[tuple[str, str]], thresholds: list[float], p: object = _scipy) -> float:
    """max over the common rates of the chance that some comparison crosses at some look, by enumeration."""
    names = list(dict.fromkeys(g for pair in pairs for g in pair))
    parts: list[set[str]] = []
    for g, o in pairs:
        joined = [q for q in parts if g in q or o in q]
        parts = [q for q in parts if q not in joined] + [set().union(*joined, {g, o})]
    none = 1.0
    for part in parts:
        local = [g for g in names if g in part]
        mine = [(local.index(g), local.index(o)) for g, o in pairs if g in part]
        rates = np.linspace(0.0, 1.0, 401 if len(local) == 2 else 201)
        fires = any_crossing(mine, len(local), p, thresholds)  # type: ignore[arg-type]
        chance = fire_chances(LOOKS, len(local), np.repeat(rates[:, None], len(local), axis=1), fires)
        none *= 1 - chance.sum(axis=0).max()
    return 1 - none


@pytest.mark.parametrize("spending", ["obrien-fleming", "pocock"])
@pytest.mark.parametrize("name", list(DESIGNS))
def test_a_reader_with_scipy_finds_the_stated_size(spending: str, name: str) -> None:
    pairs = DESIGNS[name]
    design = calibrated(LOOKS, ALPHA, spending, "boschloo", structure(pairs))  # type: ignore[arg-type]
    for n, threshold in zip(LOOKS, design.thresholds, strict=True):
        assert np.array_equal(_scipy(n) < threshold, np.asarray(p_grid(n, n)) < threshold), (n, threshold)
    size = _size(pairs, design.thresholds)
    assert size <= ALPHA and size <= design.size <= size + 5e-4, (size, design.size)


def test_a_threshold_on_an_excluded_p_is_not_reproducible() -> None:
    """The rule before: each threshold the p of the first outcome that must not cross (look 20: 0.042431…). scipy's
    p of that outcome is a few parts in 10^8 lower, so a reader crossing it finds a size above α."""
    design = calibrated(LOOKS, ALPHA, "obrien-fleming", "boschloo")
    on = [float(np.min(np.where(np.asarray(p_grid(n, n)) > t, p_grid(n, n), np.inf)))
          for n, t in zip(LOOKS, design.thresholds, strict=True)]
    assert on[-1] == pytest.approx(0.042431417068346716, rel=1e-12)
    assert _size(DESIGNS["one"], on, lambda n: np.asarray(p_grid(n, n))) <= ALPHA  # the harness's own p: within α
    assert _size(DESIGNS["one"], on) > ALPHA  # scipy's: beyond it
