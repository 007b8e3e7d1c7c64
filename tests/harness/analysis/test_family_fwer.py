"""The family-wise error of the default family (X-41), by exact enumeration independent of the code under test:
the chance that any comparison of the family is called separable when no group differs within a stage, the
largest over the common pass rates, is at most α at n = 3, 10, 20 and 50 per group, for ``placement-rates``
(the local placement probe's rules) and for the fixed plan's ``placement-v3``.

The p-values and every probability are scipy's (``tests.helpers.family_enumeration``); ``build_family`` (and
``adjusted`` on the blocks it builds) is used only as a black box that decides, from the counts, whether the
family calls anything separable. Both families turn out decided by their first step: something is separable
exactly when the family's smallest p (the placement-rates triangle's B vs C left out) is below the stated
cut-off, checked through the black box on every outcome at n = 3 and 10 for placement-rates and on outcomes
at the cut-off otherwise. Then the chance is computed without the code under test.

Recorded, α = 0.05, the largest over the common pass rates of each independent block (docs/evidence.md may
quote these; ``RECORDED``):

==============================================  ========  ========  ========  ========
family-wise error                               n = 3     n = 10    n = 20    n = 50
==============================================  ========  ========  ========  ========
placement-rates, 4 comparisons, exact closed    0         0.03641   0.04760   0.04922
placement-rates, 4 comparisons, Holm            0         0.04346   0.04078   0.04399
placement-rates, 4 comparisons, each at α       0.11072   0.14199   0.15475   0.16332
B vs A and C vs A only, Holm                    0         0.04265   0.04169   0.04548
B vs A and C vs A only, each at α               0.05859   0.07691   0.08429   0.08883
one comparison at α                             0.03125   0.04219   0.04643   0.04867
fixed plan, 2 × 10 comparisons, exact closed    0         0.01528   0.03978   0.04045
  its stated size (a Bonferroni bound)          0         0.01738   0.04738   0.04765
fixed plan, 2 × 10 comparisons, Holm            0         0.01528   0.03978   0.04045
fixed plan, 2 × 10 comparisons, each at α       0.37825   0.43642   0.45955   0.48980
==============================================  ========  ========  ========  ========

(Holm over the fixed plan's twenty comparisons separates at the same outcomes as the exact closed test here:
both cut between the same two p-value levels.)
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from harness.analysis._family import FamilyResult, build_family
from harness.plan import FindingsSpec, load_plan
from harness.stats import Block, adjusted, first_step, p_grid
from tests.helpers.family_enumeration import (
    boschloo,
    compatible_chance,
    exact_statistic,
    fisher_statistic,
    is_band,
    one_sided,
    region_sizes,
    sup_chance,
)

ROOT = Path(__file__).resolve().parents[3]
ALPHA = 0.05
NS = (3, 10, 20, 50)
RECORDED = {  # (family, method): value at n = 3, 10, 20, 50
    ("rates", "exact"): (0.0, 0.0364055, 0.0476007, 0.0492199),
    ("rates", "holm"): (0.0, 0.0434589, 0.0407790, 0.0439870),
    ("rates", "none"): (0.1107178, 0.1419857, 0.1547488, 0.1633190),
    ("two", "holm"): (0.0, 0.0426524, 0.0416911, 0.0454763),
    ("two", "none"): (0.0585938, 0.0769118, 0.0842888, 0.0888320),
    ("one", "none"): (0.03125, 0.0421906, 0.0464331, 0.0486654),
    ("fixed", "exact"): (0.0, 0.0152779, 0.0397766, 0.0404541),
    ("fixed", "holm"): (0.0, 0.0152779, 0.0397766, 0.0404541),
    ("fixed", "none"): (0.3782470, 0.4364156, 0.4595544, 0.4897988),
}


@cache
def _spec(name: str) -> FindingsSpec:
    plan, _ = load_plan(ROOT / "plans" / name / "experiment-plan.json")
    assert (plan.analysis.alpha, plan.analysis.test, plan.analysis.family, plan.analysis.familyMethod) == (
        ALPHA, "boschloo", "findings", "exact")  # the defaults the family is held with
    return plan.findings


def _rates() -> FindingsSpec:
    spec = _spec("local-placement-probe")
    assert spec.rules == "placement-rates" and len(spec.anomalyStages) == 1
    return spec


def _fixed() -> FindingsSpec:
    spec = _spec("unified-mapping-ab-20261005")
    assert spec.rules == "placement-v3" and len(spec.anomalyStages) == 2
    return spec


def _groups(spec: FindingsSpec) -> tuple[str, str, str, str, str]:
    """A, B, C, v1, v2."""
    return spec.placementControl, spec.positionGroup, spec.roleGroup, spec.controlGroup, spec.sentinelGroup


def _family(spec: FindingsSpec, x: np.ndarray, n: int, method: str = "exact") -> FamilyResult:
    """The black box: ``x[stage, group]`` passes of n, groups in ``_groups`` order."""
    counts = {g: {stage: (int(x[s, i]), n) for s, stage in enumerate(spec.anomalyStages)}
              for i, g in enumerate(_groups(spec))}
    return build_family(spec, {None: counts}, ALPHA, "boschloo", method=method)  # type: ignore[arg-type]


def _separates(result: FamilyResult) -> bool:
    return any(v < ALPHA for v in result.adjusted.values())


@cache
def _cutoff(rules: str, n: int, method: str = "exact") -> tuple[float, float]:
    """The family's stated first-step cut-off and size (they depend on n only)."""
    spec = _rates() if rules == "rates" else _fixed()
    summary = _family(spec, np.zeros((len(spec.anomalyStages), 5), dtype=int), n, method).summary
    assert summary.cutoff is not None and summary.size is not None
    return summary.cutoff, summary.size


# 1. the p-values ---------------------------------------------------------------------------------------------
def _scipy(x_a: int, x_b: int, n: int, alternative: str = "two-sided") -> float:
    from scipy.stats import boschloo_exact

    return float(boschloo_exact([[x_a, x_b], [n - x_a, n - x_b]], alternative=alternative).pvalue)


def _tables(n: int) -> list[tuple[int, int]]:
    """Every table at n = 3; otherwise the extremes, the centre, the tables at either side of the placement-rates
    cut-off and of α, and a fixed spread of others."""
    if n == 3:
        return list(itertools.product(range(4), repeat=2))
    mine = boschloo(n)
    out = [(n, 0), (0, n), (n // 2, n // 2), (1, n - 1)]
    for cut in (_cutoff("rates", n)[0], ALPHA):
        below, above = mine[mine < cut], mine[mine >= cut]
        out += [tuple(int(v) for v in np.argwhere(mine == level)[0]) for level in (below.max(), above.min())]
    rng = np.random.default_rng(n)
    return out + [(int(a), int(b)) for a, b in rng.integers(0, n + 1, (4, 2))]


@pytest.mark.parametrize("n", NS)
def test_independent_p_values_are_scipys_boschloo(n: int) -> None:
    """Mine against ``scipy.stats.boschloo_exact`` (columns are the groups; 'less': the first passes less
    often), within a relative 1e-6 (scipy's search can stop that far below the maximum); the regions from
    scipy's hypergeom floats are those of the exact rational statistics (no tie within scipy's 1e-13 is
    decided by rounding); the harness's certified upper bounds are never below mine, and at most 1e-6 above."""
    mine = boschloo(n)
    for x_a, x_b in _tables(n):
        assert mine[x_a, x_b] == pytest.approx(_scipy(x_a, x_b, n), rel=1e-6, abs=1e-15), (x_a, x_b)
    for x_a, x_b in ((n, 0), (1, n - 1), (n // 2, n // 3)):
        assert one_sided(n)[x_a, x_b] == pytest.approx(_scipy(x_a, x_b, n, "less"), rel=1e-6, abs=1e-15)
        assert one_sided(n)[x_b, x_a] == pytest.approx(_scipy(x_a, x_b, n, "greater"), rel=1e-6, abs=1e-15)
    np.testing.assert_array_equal(region_sizes(fisher_statistic(n)), region_sizes(exact_statistic(n)))
    harness = p_grid(n, n, "boschloo")
    assert np.all(mine <= harness * (1 + 1e-12)) and np.all(harness <= mine * (1 + 1e-6))
    assert np.array_equal(mine, mine.T)  # equal n: a vs b reads as b vs a


@pytest.mark.parametrize("n", NS)
def test_every_threshold_lies_clear_of_every_p_value(n: int) -> None:
    """No p-value (mine or the harness's) lies within a relative 1e-6 of a cut-off used below, so mine and the
    harness's decide every outcome alike against each."""
    mine, harness = boschloo(n), p_grid(n, n, "boschloo")
    for cut in (_cutoff("rates", n)[0], _cutoff("fixed", n)[0], ALPHA, ALPHA / 2, ALPHA / 4, ALPHA / 20):
        assert not np.any(np.abs(mine / cut - 1) < 1e-6), cut
        np.testing.assert_array_equal(mine < cut, harness < cut)


# 2. placement-rates: a triangle (B vs A, C vs A, then B vs C) and the sentinel (v2 vs v1) --------------------
def _triangle(p: np.ndarray) -> np.ndarray:
    """[x_A, x_B, x_C] → (p B vs A, p C vs A, p B vs C), the last axis."""
    a, b, c = np.ix_(*[np.arange(len(p))] * 3)
    return np.stack(np.broadcast_arrays(p[b, a], p[c, a], p[b, c]), axis=-1)


@cache
def _rates_blocks(n: int) -> tuple[Block, Block]:
    """The blocks ``build_family`` makes of one placement-rates stage: A, B, C (the control first) and v1, v2."""
    return (Block("triangle", (n, n, n), ((1, 0), (2, 0), (1, 2)), "boschloo"),
            Block("star", (n, n), ((1, 0),), "boschloo"))


def _rates_decide(n: int, t: np.ndarray, s: float) -> bool:
    """The black box on p-values: does the family call anything separable?"""
    return min(min(row) for row in adjusted(_rates_blocks(n), [[float(v) for v in t], [float(s)]])) < ALPHA


@pytest.mark.parametrize("n", NS)
def test_placement_rates_is_decided_by_its_first_step(n: int) -> None:
    """Through the black box: something is separable exactly when min(p B vs A, p C vs A, p v2 vs v1) is below
    the stated cut-off, and so (B vs C waits for A = B = C to fall) 'any rejection (t, s)' is 'any rejection
    (t, least s) or any rejection (least t, s)': the triangle and the sentinel cross on their own. Every
    distinct p-vector of the joint outcomes at n = 3 and 10 (the harness's p decide; mine make the rule); at
    20 and 50 the triangles and sentinels at the levels either side of the cut-off and a random sample."""
    cut = _cutoff("rates", n)[0]
    harness, mine = p_grid(n, n, "boschloo"), boschloo(n)
    triples, first, t_of = np.unique(_triangle(harness).reshape(-1, 3), axis=0, return_index=True,
                                     return_inverse=True)
    sentinels, s_first = np.unique(harness.ravel(), return_index=True)
    t_rule = np.min(_triangle(mine).reshape(-1, 3)[first][:, :2], axis=1) < cut
    s_rule = mine.ravel()[s_first] < cut
    t_least, s_least = int(np.flatnonzero((triples == 1.0).all(axis=1))[0]), len(sentinels) - 1
    assert sentinels[s_least] == 1.0
    rng = np.random.default_rng(n)
    if n <= 10:
        ts, ss = np.arange(len(triples)), np.arange(len(sentinels))
        pairs = list(itertools.product(ts, ss))
    else:
        near = [mine[mine < cut].max(), mine[mine >= cut].min()]
        t_stat = np.min(_triangle(mine).reshape(-1, 3)[first][:, :2], axis=1)
        edge = np.flatnonzero(np.isin(t_stat, near))
        ts = np.unique(np.concatenate([rng.choice(edge, min(60, len(edge)), replace=False),
                                       rng.choice(len(triples), 40, replace=False), [t_least]]))
        s_stat = mine.ravel()[s_first]
        ss = np.unique(np.concatenate([np.flatnonzero((s_stat > cut / 3) & (s_stat < 3 * cut)),
                                       rng.choice(len(sentinels), 20, replace=False), [s_least]]))
        pairs = [(t, s_least) for t in ts] + [(t_least, s) for s in ss]
        pairs += list(zip(rng.choice(ts, 150), rng.choice(ss, 150), strict=True))
    decided = {(int(t), int(s)): _rates_decide(n, triples[t], sentinels[s]) for t, s in dict.fromkeys(pairs)}
    for (t, s), verdict in decided.items():
        assert verdict == (decided[t, s_least] or decided[t_least, s]), (triples[t], sentinels[s])
        assert verdict == (t_rule[t] or s_rule[s]), (triples[t], sentinels[s])
    if n <= 10:  # every triangle outcome's verdict, as the rule gives it
        verdicts = np.array([decided[t, s_least] for t in range(len(triples))])
        np.testing.assert_array_equal(verdicts[t_of], t_rule[t_of])
    # build_family on the counts decides as ``adjusted`` on the blocks above
    every = np.argwhere(np.ones((n + 1,) * 5, dtype=bool)) if n == 3 else rng.integers(0, n + 1, (40, 5))
    for x in every:
        a, b, c, v1, v2 = (int(v) for v in x)
        t = np.array([harness[b, a], harness[c, a], harness[b, c]])
        assert _separates(_family(_rates(), x[None, :], n)) == _rates_decide(n, t, harness[v2, v1])


@cache
def _rates_fwer(n: int, cut: float, with_bc: bool) -> float:
    """sup over π1 of P(the triangle crosses) and over π2 of P(the sentinel crosses), combined: the blocks are
    independent and their rates free. ``with_bc``: B vs C crosses on its own too (Holm, or each at α)."""
    p = boschloo(n)
    triangle = _triangle(p) if with_bc else _triangle(p)[..., :2]
    return 1 - (1 - sup_chance(triangle.min(axis=-1) < cut)) * (1 - sup_chance(p < cut))


@pytest.mark.parametrize("n", NS)
def test_placement_rates_family_wise_error_is_at_most_alpha(n: int) -> None:
    """The exact closed test's family-wise error, computed without the code under test, is at most α and is the
    family's stated size: the size is the first step's chance, and the first step decides everything (above);
    the harness's is a certified upper bound of the maximum, mine a value attained, within 1e-6 of it."""
    cut, size = _cutoff("rates", n)
    fwer = _rates_fwer(n, cut, False)
    print(f"placement-rates n={n}: family-wise error {fwer:.7f}, stated size {size:.7f}, cut-off {cut:.6g}")
    assert fwer <= ALPHA
    assert fwer <= size + 1e-12 and size - fwer < 1e-6
    assert fwer == pytest.approx(RECORDED["rates", "exact"][NS.index(n)], abs=5e-7)


def _holm_black_box(n: int, x: np.ndarray) -> bool:
    return _separates(_family(_rates(), x[None, :], n, "holm"))


@pytest.mark.parametrize("n", NS)
def test_holm_and_no_adjustment_recorded(n: int) -> None:
    """What the exact closed test improves on: Holm on all four (any separable ⇔ the smallest p < α / 4, checked
    through the black box on a sample at that edge), each comparison at α, and the two placements alone."""
    mine, harness, i = boschloo(n), p_grid(n, n, "boschloo"), NS.index(n)
    rng = np.random.default_rng(n)
    candidates = rng.integers(0, n + 1, (20_000, 5))
    a, b, c, v1, v2 = candidates.T
    smallest = np.min([mine[b, a], mine[c, a], mine[b, c], mine[v2, v1]], axis=0)
    edge = [mine[mine < ALPHA / 4].max(initial=0.0), mine[mine >= ALPHA / 4].min()]  # the p-levels either side
    assert all(np.any(smallest == e) for e in edge[n == 3:])  # at n = 3 no p is below α / 4 (0.031 the least)
    picks = np.concatenate([np.flatnonzero(smallest == e)[:12] for e in edge] + [np.arange(12)])
    for k in picks:
        assert _holm_black_box(n, candidates[k]) == (smallest[k] < ALPHA / 4), candidates[k]
        assert (smallest[k] < ALPHA / 4) == (min(harness[b[k], a[k]], harness[c[k], a[k]], harness[b[k], c[k]],
                                                 harness[v2[k], v1[k]]) < ALPHA / 4)
    found = {("rates", "holm"): _rates_fwer(n, ALPHA / 4, True), ("rates", "none"): _rates_fwer(n, ALPHA, True),
             ("two", "holm"): sup_chance(_triangle(mine)[..., :2].min(axis=-1) < ALPHA / 2),
             ("two", "none"): sup_chance(_triangle(mine)[..., :2].min(axis=-1) < ALPHA),
             ("one", "none"): sup_chance(mine < ALPHA)}
    print(f"n={n}: " + ", ".join(f"{k[0]} {k[1]} {v:.7f}" for k, v in found.items()))
    for k, value in found.items():
        assert value == pytest.approx(RECORDED[k][i], abs=5e-7), k
    assert found["rates", "holm"] <= ALPHA and found["two", "holm"] <= ALPHA


@pytest.mark.parametrize("n", [10, 20])
def test_holms_stated_size_is_its_family_wise_error(n: int) -> None:
    size = first_step(list(_rates_blocks(n)), ALPHA, "holm").size
    assert size == pytest.approx(_rates_fwer(n, ALPHA / 4, True), abs=1e-6)


# 3. the fixed plan: placement-v3, every pair of A, B, C, v1, v2 in each of two stages (Bonferroni within) ----
def _smallest_v3(p: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The smallest p of every pair of groups, over the stages: ``x[..., stage, group]``."""
    return np.min([p[x[..., g], x[..., o]] for g, o in itertools.combinations(range(5), 2)], axis=(0, -1))


@pytest.mark.parametrize("n", NS)
def test_fixed_plan_is_decided_by_its_first_step(n: int) -> None:
    """Through the black box: something is separable exactly when the smallest p of the twenty comparisons is
    below the stated cut-off; outcomes whose smallest p lies at the levels either side of it (groups near one
    another, so the edge is met often), and random ones. At n = 3 no p reaches the cut-off (3/3 vs 0/3:
    0.031), so every outcome is on the side that separates nothing; one stage is enumerated there."""
    cut, spec, mine = _cutoff("fixed", n)[0], _fixed(), boschloo(n)
    rng = np.random.default_rng(n)
    if n == 3:
        x = np.zeros((4**5, 2, 5), dtype=int)
        x[:, 0] = np.argwhere(np.ones((4,) * 5, dtype=bool))
        chosen = x[rng.choice(len(x), 40, replace=False)]
        assert _smallest_v3(mine, x).min() > cut
    else:  # a table at the edge level between two groups of a stage, every other group of both between them
        edge = [mine[mine < cut].max(), mine[mine >= cut].min()]
        chosen = list(rng.integers(0, n + 1, (4, 2, 5)))
        for level in edge:
            tables = np.argwhere(mine == level)
            for i, j in tables[rng.choice(len(tables), 8)]:
                x = rng.integers(min(i, j), max(i, j) + 1, (2, 5))
                stage, (g, o) = rng.integers(2), rng.choice(5, 2, replace=False)
                x[stage, g], x[stage, o] = i, j
                assert _smallest_v3(mine, x) == level
                chosen.append(x)
    for outcome in chosen:
        assert _separates(_family(spec, outcome, n)) == (_smallest_v3(mine, outcome) < cut), outcome.tolist()


@pytest.mark.parametrize("n", [3, 6, 10])
def test_the_band_gives_the_enumerated_chance(n: int) -> None:
    """Five groups' outcomes enumerated ((n + 1)^5) against the band's min–max sum, at the fixed plan's cut-off
    (n = 6: the first n where anything crosses it) and at α."""
    mine = boschloo(n)
    grid = np.ix_(*[np.arange(n + 1)] * 5)
    for cut in (_cutoff("fixed", n)[0], ALPHA):
        crossing = np.zeros((n + 1,) * 5, dtype=bool)
        for g, o in itertools.combinations(range(5), 2):
            crossing |= mine[grid[g], grid[o]] < cut
        assert compatible_chance(mine >= cut, 5) == pytest.approx(sup_chance(crossing), abs=1e-12)


@pytest.mark.parametrize("n", NS)
def test_fixed_plan_family_wise_error_is_at_most_alpha(n: int) -> None:
    """Per stage, P(no two of five groups separable) = Σ over compatible (lo, hi) of P(min = lo, max = hi), the
    compatible pairs (p ≥ cut-off) a band at every n (so min and max compatible ⇒ every pair is); the stages are
    independent, their rates free: 1 − (1 − q)². At most the stated size (Bonferroni within a stage, so an upper
    bound) and at most α; Holm (α / 20) and each comparison at α recorded beside it."""
    cut, size = _cutoff("fixed", n)
    mine, harness, i = boschloo(n), p_grid(n, n, "boschloo"), NS.index(n)
    found = {}
    for method, at in (("exact", cut), ("holm", ALPHA / 20), ("none", ALPHA)):
        assert is_band(mine >= at) and is_band(harness >= at)
        found[method] = 1 - (1 - compatible_chance(mine >= at, 5)) ** 2
        assert found[method] == pytest.approx(RECORDED["fixed", method][i], abs=5e-7), method
    print(f"fixed plan n={n}: " + ", ".join(f"{k} {v:.7f}" for k, v in found.items()) + f", stated size {size:.7f}")
    assert found["exact"] <= size + 1e-12 and found["exact"] <= ALPHA and found["holm"] <= ALPHA
