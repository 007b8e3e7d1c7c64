"""``placement-rates``: findings for sampled repeats without gating compare pass rates with the plan's exact
test (Boschloo's by default); every sentence names its counts, p and p adjusted for the family (B vs A, C vs A,
B vs C and v2 vs v1, held at α together), and at temperature 0 a difference is separable only on the distinct
answers (the local probe plan). A rule claims only what its comparisons test: only B shown to help does not say
C does not, and B helping more than C is said only when B vs C is separable."""

from __future__ import annotations

import re

import pytest

from harness.analysis import derive_rate_findings
from harness.plan import FindingsSpec

SPEC = FindingsSpec(rules="placement-rates", baselineGroup=None, baselineStage=None, anomalyStages=["simple"])


def _find(a: int, b: int, c: int, v2: int, v1: int, n: int = 20, test: str = "boschloo"
          ) -> tuple[str, str, bool | None]:
    passes = {"A": a, "B": b, "C": c, "v2": v2, "v1": v1}
    counts = {g: {"simple": (p, n)} for g, p in passes.items()}
    outcomes = {g: {"simple": "passed" if p == n else "failed"} for g, p in passes.items()}
    result = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=False,  # type: ignore[arg-type]
                                  test=test)  # type: ignore[arg-type]
    (finding,) = result.findings
    assert any(f"{test.title()}'s exact test" in c for c in result.caveats)
    return finding.rule, finding.statement, finding.sentinelReproduced


@pytest.mark.parametrize(("passes", "rule"), [
    ((8, 9, 18, 7, 19), "role-shown-to-help"),
    ((8, 18, 9, 7, 19), "position-shown-to-help"),
    ((5, 15, 16, 5, 18), "trailing-assistant-worse"),
    ((12, 13, 11, 12, 13), "no-separable-difference"),
    ((18, 6, 17, 18, 19), "placement-worse-than-control"),
    ((2, 3, 1, 2, 3), "control-weak"),
])
def test_rules_from_rates(passes: tuple[int, int, int, int, int], rule: str) -> None:
    got, statement, _ = _find(*passes)
    assert got == f"placement-rates/{rule}"
    assert "A " + f"{passes[0]}/20 (Wilson" in statement and "v1 " + f"{passes[4]}/20" in statement
    if rule != "control-weak":
        assert re.search(r"Boschloo p (= [01]\.\d+|< 0\.001)", statement)  # the p it rests on


def test_sentinel_reproduced_only_when_separable_below_the_control() -> None:
    assert _find(8, 9, 18, 7, 19)[2] is True  # v2 7/20 vs v1 19/20, p < 0.001
    assert _find(12, 13, 11, 12, 13)[2] is False  # not separable: not shown at this n
    assert _find(1, 2, 2, 0, 3, n=3, test="fisher")[2] is False  # 0/3 vs 3/3: Fisher p = 0.10, not shown
    # Boschloo p = 0.031: separable on its own, not as one of the family's four comparisons
    counts = {g: {"simple": (p, 3)} for g, p in {"A": 1, "B": 2, "C": 2, "v2": 0, "v1": 3}.items()}
    outcomes = {g: {"simple": "passed" if c["simple"][0] == 3 else "failed"} for g, c in counts.items()}
    (f,) = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=True).findings  # type: ignore[arg-type]
    assert f.sentinelReproduced is False
    assert re.search(r"v2 0/3 vs v1 3/3: Boschloo p = 0\.031, adjusted p = 0\.\d+, not separable", f.sentinelStatement)


def test_a_control_without_trials_draws_no_conclusion() -> None:
    counts = {"A": {"simple": (10, 20)}, "B": {"simple": (12, 20)}, "C": {"simple": (11, 20)},
              "v2": {"simple": (9, 20)}, "v1": {"simple": (0, 0)}}
    outcomes = {g: {"simple": "failed"} for g in counts} | {"v1": {"simple": "inconclusive"}}
    result = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=True)  # type: ignore[arg-type]
    finding = result.findings[0]
    assert finding.rule == "placement-rates/control-no-verdict"
    assert finding.sentinelReproduced is None and "v1: no trial with a verdict in simple" in finding.limitedBy


def test_each_comparison_names_both_counts_and_a_p_that_is_never_zero() -> None:
    """A separable p of 0.0022 printed "p = 0.002" and one below 0.001 "p = 0.000"; each comparison now
    carries its two counts, and the finding its comparisons as data."""
    passes = {"A": 8, "B": 9, "C": 18, "v2": 7, "v1": 19}
    counts = {g: {"simple": (p, 20)} for g, p in passes.items()}
    outcomes = {g: {"simple": "failed"} for g in passes}
    (f,) = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=True).findings  # type: ignore[arg-type]
    assert "(B 9/20 vs A 8/20: Boschloo p = 0.87, adjusted p = 0.87, not separable at this n; " \
           "C 18/20 vs A 8/20: Boschloo p < 0.001, adjusted p = 0.0017, separable (adjusted p < 0.05), C above A)" \
           in f.statement
    assert "; C helps more than B (C 18/20 vs B 9/20: Boschloo p = 0.0024, adjusted p = 0.0024, separable " \
           "(adjusted p < 0.05), C above B)" in f.statement
    assert f.sentinelStatement.startswith("Sentinel: v2 7/20 vs v1 19/20: Boschloo p < 0.001, adjusted p < 0.001, "
                                          "separable (adjusted p < 0.05)")
    assert "p = 0.000" not in f.statement + f.sentinelStatement
    assert f.shown is True and [(c.group, c.other, c.separable) for c in f.restsOn] == [
        ("B", "A", False), ("C", "A", True), ("B", "C", True)]
    assert all(c.family == "findings" and c.pValue <= c.adjustedP for c in f.restsOn)  # type: ignore[operator]


def test_only_one_placement_shown_to_help_says_nothing_of_the_other() -> None:
    """B better than A, C not separable from A: B helps, whether C does is not shown (never "C does not"); that
    B helps more than C is said only where B vs C is separable itself."""
    rule, statement, _ = _find(8, 18, 14, 7, 19)
    assert rule == "placement-rates/position-shown-to-help"
    assert "whether making it a user message (C) helps is not shown at this n" in statement
    assert "which of B and C helps more is not shown (B 18/20 vs C 14/20" in statement
    assert "helps more than" not in statement


def test_without_a_family_each_comparison_is_judged_alone() -> None:
    counts = {g: {"simple": (p, 3)} for g, p in {"A": 1, "B": 2, "C": 2, "v2": 0, "v1": 3}.items()}
    outcomes = {g: {"simple": "passed" if c["simple"][0] == 3 else "failed"} for g, c in counts.items()}
    (f,) = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=True,  # type: ignore[arg-type]
                                family="none").findings
    assert f.sentinelReproduced is True and "Boschloo p = 0.031, separable (p < 0.05)" in f.sentinelStatement
    assert "adjusted" not in f.statement + f.sentinelStatement


def test_identical_repeats_are_compared_on_their_distinct_answers() -> None:
    """At temperature 0, 3/3 vs 0/3 identical answers (Boschloo p = 0.031) are 1/1 vs 0/1: not separable."""
    counts = {g: {"simple": (3, 3)} for g in ("A", "B", "C", "v2", "v1")} | {"A": {"simple": (0, 3)}}
    one = {g: {"simple": (c["simple"][0] // 3, 1)} for g, c in counts.items()}
    outcomes = {g: {"simple": "passed" if c["simple"][0] else "failed"} for g, c in counts.items()}
    (f,) = derive_rate_findings(SPEC, counts, outcomes, model_kind="real", maintenance_ran=True,  # type: ignore[arg-type]
                                samples=one).findings
    assert f.rule == "placement-rates/no-separable-difference"
    assert re.search(r"B 3/3 vs A 0/3: Boschloo p = 0\.031, but identical repeats are one sample repeated: on the "
                     r"distinct answers B 1/1 vs A 0/1, p = 0\.50, adjusted p = 0\.\d+, not separable at this n",
                     f.statement)
    assert all(not c.separable and c.n == 1 for c in f.restsOn)
