"""The numbers docs/evidence.md ("The family") quotes for the probe plan's family, recomputed: the power to call
C better than A at 0.1 vs 0.6 with 20 per group, at α on its own, in the family (the exact closed test, with B at
A's rate and the sentinel never separable) and with Holm; the cut-offs of the alternatives it measured."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from harness.stats import Block, adjusted, first_step, p_grid, power
from harness.stats._sizes import pair_curve, pairs_curve

EVIDENCE = (Path(__file__).resolve().parents[2] / "docs" / "evidence.md").read_text(encoding="utf-8")
N, A_RATE, C_RATE = 20, 0.1, 0.6
TRIANGLE = Block("triangle", (N, N, N), ((1, 0), (2, 0), (1, 2)), "boschloo")
SENTINEL = Block("star", (N, N), ((1, 0),), "boschloo")


@cache
def _closed_power(method: str) -> float:
    """P(C vs A separable, C above A): every outcome of A, B (at A's rate) and C, the sentinel's p at 1."""
    p, x = p_grid(N, N), np.arange(N + 1)
    a_pmf, c_pmf = binom.pmf(x, N, A_RATE), binom.pmf(x, N, C_RATE)
    total = 0.0
    for a in x:
        for b in x:
            for c in x[x > a]:
                weight = a_pmf[a] * a_pmf[b] * c_pmf[c]
                if weight < 1e-15:
                    continue
                values = adjusted([TRIANGLE, SENTINEL], [[float(p[b, a]), float(p[c, a]), float(p[b, c])], [1.0]],
                                  method)  # type: ignore[arg-type]
                total += weight * (values[0][1] < 0.05)
    return total


def test_the_power_cost_the_docs_state() -> None:
    alone = power(C_RATE, A_RATE, N, N, 0.05)
    step = first_step([TRIANGLE, SENTINEL], 0.05)
    exact, holm = _closed_power("exact"), _closed_power("holm")
    assert (round(alone, 2), round(exact, 2), round(holm, 2)) == (0.94, 0.87, 0.85)
    first = power(C_RATE, A_RATE, N, N, step.cutoff)
    assert round(first, 3) == 0.868 and first <= exact  # the first step bounds it
    assert "0.94 for C vs A at α on its own; 0.87 in the family" in EVIDENCE
    assert "its first\nstep alone gives 0.868); 0.85 with Holm" in EVIDENCE


def test_the_alternatives_the_docs_measured() -> None:
    """B vs C in the first step: cut-off 0.014, power 0.85; the sentinel first: the placements' cut-off 0.027,
    power 0.91 once it is separable; B vs A and C vs A alone at n = 20: 0.027 (size 0.047), Holm 0.042."""
    step = first_step([TRIANGLE, SENTINEL], 0.05)
    assert round(step.cutoff, 3) == 0.018 and round(step.size, 4) == 0.0476
    curves = [pairs_curve((N, N, N), TRIANGLE.pairs, "boschloo"), pair_curve(N, N, "boschloo")]
    levels = np.unique(np.concatenate([c.levels for c in curves]))
    levels = levels[levels < 0.05]
    family = 1 - np.prod([1 - c.at_many(levels) for c in curves], axis=0)
    level = float(levels[family < 0.05].max())
    assert round(level, 3) == 0.014 and round(power(C_RATE, A_RATE, N, N, level * (1 + 1e-9)), 2) == 0.85
    star = Block("star", (N, N, N), ((1, 0), (2, 0)), "boschloo")
    both, holm = first_step([star], 0.05), first_step([star], 0.05, "holm")
    assert round(both.cutoff, 3) == 0.027 and round(both.size, 3) == 0.047 and round(holm.size, 3) == 0.042
    assert round(power(C_RATE, A_RATE, N, N, both.cutoff), 2) == 0.91
    for quoted in ("cut-off falls from 0.018 to\n  0.014, and the power below drops from 0.87 to 0.85",
                   "cut-off rises to 0.027 (power 0.91", "its cut-off is 0.027 (family-wise size\n0.047)",
                   "cut-off 0.018, size 0.0476", "leaves 0.042"):
        assert quoted in EVIDENCE, quoted


@pytest.mark.parametrize("n, fwer", [(10, 0.0364), (20, 0.0476), (50, 0.0492)])
def test_the_probe_familys_stated_size_is_the_one_quoted(n: int, fwer: float) -> None:
    triangle = Block("triangle", (n, n, n), TRIANGLE.pairs, "boschloo")
    assert round(first_step([triangle, Block("star", (n, n), ((1, 0),), "boschloo")], 0.05).size, 4) == fwer
    assert f"{fwer}" in EVIDENCE


PROBE_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "results" / "local-placement-probe.md").read_text(
    encoding="utf-8")


def _rows(after: str) -> list[list[str]]:
    """The rows of the first table after the line ``after`` starts, cells stripped."""
    lines = PROBE_PAGE[PROBE_PAGE.index(after):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|---"))
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _pair(cell: str) -> tuple[str, str]:
    raw, adjusted_p = cell.split(", ")
    return raw, adjusted_p


def test_the_probe_runs_restated_in_their_family_are_the_counts() -> None:
    """The write-up's "Re-stated with adjusted p": each run's report family (placement-rates) and the four
    comparisons against v1, recomputed from the counts the table gives by the functions a rescore uses."""
    from harness.analysis import build_family, derive_rate_findings, format_p, p_value
    from harness.plan import FindingsSpec

    spec = FindingsSpec(rules="placement-rates", anomalyStages=["simple"], baselineGroup=None, baselineStage=None)
    report_rows = _rows("| run | A, B, C, v2, v1 passes of 20 |")
    against_v1 = {row[0]: row[1:] for row in _rows("| run | A vs v1 |")}
    assert len(report_rows) == 8 and len(against_v1) == 8
    star = Block("star", (N,) * 5, ((1, 0), (2, 0), (3, 0), (4, 0)), "boschloo")
    for run, passes, *cells, rule, reproduced in report_rows:
        got = dict(zip(("A", "B", "C", "v2", "v1"), (int(x) for x in passes.split(", ")), strict=True))
        counts = {g: {"simple": (x, N)} for g, x in got.items()}
        family = build_family(spec, {None: counts}, 0.05, "boschloo")
        for cell, (g, o) in zip(cells, (("B", "A"), ("C", "A"), ("B", "C"), ("v2", "v1")), strict=True):
            raw = p_value(got[g], N, got[o], N)
            assert _pair(cell) == (format_p(raw), format_p(family.get("simple", g, o))), (run, g, o)  # type: ignore[arg-type]
        (finding,) = derive_rate_findings(spec, counts, {g: {"simple": "failed"} for g in got}, model_kind="real",
                                          maintenance_ran=True).findings
        assert finding.rule == f"placement-rates/{rule}" and finding.sentinelReproduced is (reproduced == "yes")
        raws = [p_value(got[g], N, got["v1"], N) for g in ("A", "B", "C", "v2")]
        held = adjusted([star], [raws])[0]
        assert [_pair(c) for c in against_v1[run]] == [(format_p(r), format_p(h)) for r, h in zip(raws, held,
                                                                                                   strict=True)]
