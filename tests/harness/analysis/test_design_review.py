"""The design review (X-40, X-41, X-44): what a plan's comparisons can show before anything runs, and the
required checks it makes impossible to exercise."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import DesignReview, review_design
from harness.plan import PlanError, parse_plan

PLANS = Path(__file__).resolve().parents[3] / "plans"
FIXED = PLANS / "unified-mapping-ab-20261005" / "experiment-plan.json"
PROBE = PLANS / "local-placement-probe" / "experiment-plan.json"


def _data(path: Path) -> dict[str, Any]:
    return copy.deepcopy(json.loads(path.read_text(encoding="utf-8")))


def _review(data: dict[str, Any]) -> DesignReview:
    return review_design(parse_plan(data)[0])


def _kinds(review: DesignReview) -> list[tuple[str, str | None, bool]]:
    return [(f.kind, f.stage, f.problem) for f in review.findings]


def test_fixed_plan_can_separate_a_complete_difference_in_simple_once_repeats_are_draws() -> None:
    """Boschloo's test (the default): 3/3 vs 0/3 is p = 0.031, so simple can separate a complete difference; the
    2 repeats of tool_continuation cannot (2/2 vs 0/2: 0.125); at temperature 0 each stage is one sample."""
    review = _review(_data(FIXED))
    pairs = [(c.stage, c.group, c.other) for c in review.comparisons]
    expected = [("B", "A"), ("C", "A"), ("v2", "v1")]
    assert review.test == "boschloo"
    assert pairs == [(s, g, o) for s in ("simple", "tool_continuation") for g, o in expected]
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.n == 3 and c.smallestP == pytest.approx(1 / 32, rel=1e-6) and c.separablePossible for c in simple)
    later = [c for c in review.comparisons if c.stage == "tool_continuation"]
    assert all(c.n == 2 and c.smallestP == pytest.approx(1 / 8, rel=1e-6) and not c.separablePossible
               for c in later)
    assert all(c.nSeparable == 3 and c.power is None and c.nForPower is None for c in review.comparisons)
    assert _kinds(review) == [("not-separable", "tool_continuation", True), ("one-sample", "simple", True),
                              ("one-sample", "tool_continuation", True), ("one-sample", "conversation", False)]
    later_text, simple_sample = review.findings[0].statement, review.findings[1].statement
    assert "tool_continuation: at n = 2 per group B vs A, C vs A, v2 vs v1 cannot be separable" in later_text
    assert "smallest two-sided Boschloo p any outcome can reach is 0.13 (2/2 vs 0/2)" in later_text
    assert "separable at n = 3 per group (3/3 vs 0/3: p = 0.031)" in later_text
    assert review.findings[0].fix == "raise the repeats of tool_continuation to at least 3"
    assert "at temperature 0 this stage has one independent sample per group" in simple_sample
    assert ("once its repeats are sampled draws (temperature above 0), a complete difference (3/3 vs 0/3) is "
            "separable: Boschloo p = 0.031.") in simple_sample
    assert review.problems == 3


def test_fixed_plan_with_fishers_test_can_separate_nothing() -> None:
    data = _data(FIXED)
    data["analysis"] = {"test": "fisher"}
    review = _review(data)
    assert review.test == "fisher"
    assert all(not c.separablePossible and c.nSeparable == 4 for c in review.comparisons)
    assert _kinds(review)[:2] == [("not-separable", "simple", True), ("not-separable", "tool_continuation", True)]
    simple_text = review.findings[0].statement
    assert "simple: at n = 3 per group B vs A, C vs A, v2 vs v1 cannot be separable at α = 0.05" in simple_text
    assert "smallest two-sided Fisher p any outcome can reach is 0.10 (3/3 vs 0/3)" in simple_text
    assert "separable at n = 4 per group (4/4 vs 0/4: p = 0.029)" in simple_text
    assert review.findings[0].fix == "raise the repeats of simple to at least 4"
    assert ("even as sampled draws, a complete difference (3/3 vs 0/3, Fisher p = 0.10) cannot be separable at "
            "n = 3") in review.findings[2].statement
    assert review.problems == 4


def test_probe_plan_has_no_design_problem() -> None:
    review = _review(_data(PROBE))
    assert review.problems == 0 and review.findings == []
    assert len(review.comparisons) == 3 and all(c.separablePossible and c.n == 20 for c in review.comparisons)


def test_review_is_camel_case_json_with_its_problem_count() -> None:
    dumped = _review(_data(FIXED)).model_dump(mode="json")
    assert dumped["problems"] == 3 and dumped["alpha"] == 0.05 and dumped["targetPower"] == 0.8
    assert dumped["test"] == "boschloo" and dumped["sequential"] == []
    assert {"smallestP", "separablePossible", "nSeparable", "nForPower", "otherN"} <= set(dumped["comparisons"][0])


def test_expected_effect_gives_power_and_the_n_for_it() -> None:
    data = _data(PROBE)
    data["analysis"] = {"effect": {"control": 0.9, "treatment": 0.3}, "test": "fisher"}
    review = _review(data)
    assert review.problems == 0
    assert all(c.power == pytest.approx(0.9787, abs=1e-4) and c.nForPower == 12 for c in review.comparisons)
    data["stages"][0]["repeats"] = 8
    review = _review(data)
    (finding,) = review.findings
    assert (finding.kind, finding.problem, finding.fix) == ("underpowered", True, "raise the repeats of simple to 12")
    assert "the exact power of B vs A, C vs A, v2 vs v1 at n = 8 per group is 0.60" in finding.statement
    assert "80% power needs n = 12 per group" in finding.statement
    del data["analysis"]["test"]  # Boschloo: 10 per group
    (finding,) = _review(data).findings
    assert finding.fix == "raise the repeats of simple to 10" and "(two-sided Boschloo, α = 0.05)" in finding.statement


def test_plan_alpha_decides_what_can_be_separable() -> None:
    data = _data(FIXED)
    data["analysis"] = {"alpha": 0.2, "test": "fisher"}
    review = _review(data)
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.separablePossible and c.nSeparable == 3 for c in simple)  # 0.10 < 0.2
    assert [f.stage for f in review.findings if f.kind == "not-separable"] == ["tool_continuation"]


@pytest.mark.parametrize("analysis, where", [
    ({"effect": {"control": 0.5, "treatment": 0.5}}, "$.analysis.effect: control and treatment rates are equal"),
    ({"alpha": 1.5}, "$.analysis.alpha"),
    ({"effect": {"control": 1.2, "treatment": 0.3}}, "$.analysis.effect.control"),
    ({"beta": 0.2}, "$.analysis.beta: unknown key"),
])
def test_bad_analysis_is_refused_by_path(analysis: dict[str, Any], where: str) -> None:
    data = _data(PROBE)
    data["analysis"] = analysis
    with pytest.raises(PlanError) as caught:
        parse_plan(data)
    assert any(e.startswith(where) for e in caught.value.errors), caught.value.errors


# required checks the plan makes impossible to exercise ------------------------------------------------
def _unbound() -> dict[str, Any]:
    """The fixed plan as written before agent.contextMaintainer existed."""
    data = _data(FIXED)
    del data["agent"]["contextMaintainer"]
    return data


def test_unbound_agent_cannot_exercise_compression_readback() -> None:
    review = _review(_unbound())
    (finding,) = [f for f in review.findings if f.kind == "not-exercisable"]
    assert finding.problem and finding.stage == "conversation" and finding.check == "compression_readback"
    assert finding.groups == ["A", "B", "C", "v2", "v1"]  # prefix@2 has no folds: not applicable there
    assert "agent.contextMaintainer false" in finding.statement
    assert "below maintenance.thresholdTokens 32,000" in finding.statement
    assert "would fail as not_exercised" in finding.statement
    assert finding.fix is not None
    assert "bind agent.contextMaintainer (true)" in finding.fix
    assert "lower maintenance.thresholdTokens below about" in finding.fix
    assert 'mark compression_readback "required": false in conversation' in finding.fix


def test_no_threshold_means_no_compression_at_all() -> None:
    data = _unbound()
    data["maintenance"]["thresholdTokens"] = None
    (finding,) = [f for f in _review(data).findings if f.kind == "not-exercisable"]
    assert "thresholdTokens is null: no compression can run" in finding.statement
    assert finding.fix is not None and "set maintenance.thresholdTokens" in finding.fix


@pytest.mark.parametrize("change", [
    lambda d: d["agent"].update(contextMaintainer=True),
    lambda d: d["stages"][2]["trialChecks"][5].update(required=False),
    lambda d: d["maintenance"].update(thresholdTokens=2000),  # below the estimated conversation: reachable
])
def test_each_fix_clears_the_finding(change: Any) -> None:
    data = _unbound()
    change(data)
    assert not [f for f in _review(data).findings if f.kind == "not-exercisable"]


def test_a_sequential_stage_says_the_earliest_look_it_can_stop_at() -> None:
    """Looks 4, 8, …, 20 with O'Brien–Fleming at α 0.05, thresholds calibrated exactly (Boschloo) for B:A and C:A
    together: 4/4 vs 0/4 cannot cross look 1, 8/8 vs 0/8 (p = 0.000031) crosses look 2's threshold (0.0014); exact
    size of the pair 0.049. With an effect (B and C at 0.4, A at 0.8), the chance that both cross at one look and
    the expected repeats; looks that end at n = 3 can stop nowhere: a design problem."""
    from harness.plan import parse_plan
    from tests.harness.runner.test_sequential_stopping import sequential_plan

    review = review_design(parse_plan(sequential_plan())[0])
    (note,) = [f for f in review.findings if f.kind == "sequential"]
    assert not note.problem and note.stage == "simple"
    assert "thresholds calibrated for its 2 comparisons together, 0.0039, 0.0014, 0.0049, 0.017, 0.024 (crossing " \
           "when p is below), exact size of the 2 comparisons together 0.0492" in note.statement
    assert "the earliest it can stop is look 2 (n = 8 per group), where a complete difference gives p = 0.000031 " \
           "< 0.0014" in note.statement
    (seq,) = review.sequential
    assert seq.earliestStop == 2 and 0.04 <= seq.size <= 0.05 and seq.power is None
    assert seq.comparisons == [("B", "A"), ("C", "A")] and seq.calibration == "exact"
    data = sequential_plan()
    data["analysis"] = {"effect": {"control": 0.8, "treatment": 0.4}}
    review = review_design(parse_plan(data)[0])
    (seq,) = review.sequential
    assert (round(seq.power or 0, 2), round(seq.expectedRepeats or 0, 1)) == (0.49, 18.5)
    (note,) = [f for f in review.findings if f.kind == "sequential"]
    assert "the exact chance that all 2 cross at one look (a stop) is 0.49" in note.statement
    data["stages"][next(i for i, s in enumerate(data["stages"]) if s["id"] == "simple")]["sequential"][
        "comparisons"] = [["B", "A"], ["A", "C"]]
    (seq,) = review_design(parse_plan(data)[0]).sequential
    assert seq.power is None and seq.powerNote is not None and seq.powerNote.startswith("A is compared both as")
    data = sequential_plan()
    simple = next(s for s in data["stages"] if s["id"] == "simple")
    simple.update(repeats=2, sequential={**simple["sequential"], "looks": [1, 2]})
    (stuck,) = [f for f in review_design(parse_plan(data)[0]).findings if f.kind == "sequential"]
    assert stuck.problem and "can show no separable difference" in stuck.statement and stuck.fix
