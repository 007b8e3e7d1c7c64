"""A sequential stage's looks (X-41): each comparison's exact p (the plan's test) against the look's threshold,
calibrated exactly for the listed comparisons together; a stop only when every listed comparison crosses at one
look."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from harness.analysis import Counts, boundary_text, evaluate_sequential, sequential_finding, small_p
from harness.stats import calibrated, structure

LOOKS = [4, 8, 12, 16, 20]
PAIRS = [("B", "A"), ("C", "A")]


def _evaluate(counts: Mapping[int, Mapping[str, Counts]], spending: str = "obrien-fleming",  # type: ignore[no-untyped-def]
              test: str = "boschloo", pairs: list[tuple[str, str]] = PAIRS):
    return evaluate_sequential("simple", LOOKS, spending, 0.05, pairs, lambda r: counts.get(r), test)  # type: ignore[arg-type]


def test_stops_only_when_every_comparison_crossed() -> None:
    """B is apart from A at look 2 (8/8 vs 0/8), C is not (4/8): no stop; at look 3 both are."""
    counts = {4: {"A": (0, 4), "B": (4, 4), "C": (2, 4)}, 8: {"A": (0, 8), "B": (8, 8), "C": (4, 8)},
              12: {"A": (0, 12), "B": (12, 12), "C": (12, 12)}}
    for test, c_p in (("fisher", 0.0769), ("boschloo", 0.0279)):
        result = _evaluate(counts, test=test)
        assert result.outcome == "stopped" and result.stoppedAt == 3 and result.ranTo == 12
        assert [lk.crossed for lk in result.looks] == [False, False, True]
        b, c = result.looks[1].comparisons
        assert b.crossed and not c.crossed and c.pValue == pytest.approx(c_p, abs=1e-4)
        design = calibrated(tuple(LOOKS), 0.05, "obrien-fleming", test, structure(PAIRS))  # type: ignore[arg-type]
        assert [lk.boundary for lk in result.looks] == design.thresholds[:3]
        assert result.design.test == test and result.design.size == design.size <= 0.05
        assert result.design.together == 2 and result.design.calibration == "exact"
        assert f"{test.title()}'s test, exact size of the 2 comparisons together 0.0492" in result.statement


def test_runs_as_a_fixed_design_when_no_look_crosses() -> None:
    result = _evaluate({n: {g: (n, n) for g in "ABC"} for n in LOOKS})
    assert result.outcome == "fixed" and result.stoppedAt is None and result.ranTo == 20 and len(result.looks) == 5
    assert "ran as a fixed design to the last look (n = 20 per group)" in result.statement
    finding = sequential_finding(result, {"A": {"simple": "passed"}})
    assert finding.rule == "sequential-fixed" and finding.shown is None and finding.basis == {"A": {"simple": "passed"}}


def test_a_look_the_run_did_not_finish_is_not_evaluated() -> None:
    result = _evaluate({4: {"A": (0, 4), "B": (4, 4), "C": (4, 4)}})
    assert result.outcome == "incomplete" and [lk.look for lk in result.looks] == [1]
    assert "the run ended after look 1 (n = 4 per group)" in result.statement


def test_a_side_without_a_verdict_never_crosses() -> None:
    result = _evaluate({n: {"A": (0, n), "B": (n, n), "C": (0, 0)} for n in LOOKS})
    assert result.outcome == "fixed"
    assert all(lk.comparisons[1].pValue is None and not lk.comparisons[1].crossed for lk in result.looks)
    assert "C vs A no p" in result.statement


def test_pocock_spends_early_and_stops_at_look_1() -> None:
    """Pocock spends α early: calibrated for B:A alone, 4/4 vs 0/4 (Boschloo p = 0.0078) crosses look 1's threshold
    (0.039, halfway to the next p of 4 vs 4, 0.070); O'Brien–Fleming's look 1 is half of 0.0078: no cross. For B:A
    and C:A together the chance that either crosses at look 1 (0.0151) exceeds the 0.0149 Pocock spends there, so
    the pair cannot stop before look 2. Fisher's look 1 (0.086, above α) is still valid: no outcome of 4 vs 4 has a
    p between 0.029 and 0.14."""
    counts = {n: {"A": (0, n), "B": (n, n), "C": (n, n)} for n in LOOKS}
    alone = _evaluate(counts, "pocock", pairs=[("B", "A")])
    assert alone.looks[0].boundary == pytest.approx((0.0078125 + 0.0703125) / 2, rel=1e-6) and alone.stoppedAt == 1
    assert _evaluate(counts, pairs=[("B", "A")]).stoppedAt == 2
    assert _evaluate(counts, "pocock").stoppedAt == 2
    fisher = _evaluate(counts, "pocock", "fisher", pairs=[("B", "A")])
    assert fisher.looks[0].boundary == pytest.approx(0.0857, abs=1e-4) and fisher.stoppedAt == 1
    assert "The thresholds at looks 1, 3, 4 are above α and still valid" in sequential_text(fisher)


def sequential_text(result) -> str:  # type: ignore[no-untyped-def]
    from harness.analysis import design_text

    return design_text(result.design)


def test_p_and_boundary_texts_never_round_across_the_boundary() -> None:
    assert small_p(0.0001554, 0.00193) == "0.00016" and boundary_text(1.1726e-5) == "0.000012"
    assert small_p(0.001948, 0.00194) == "0.00195"  # "0.0019" would read as below the boundary
    assert small_p(0.0019399, 0.00194) == "0.0019"  # the same side: two digits do
