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


V3_PAIRS = [("A", "v1"), ("B", "v1"), ("C", "v1"), ("v2", "v1"), ("B", "A"), ("C", "A"), ("v2", "A"), ("C", "B"),
            ("v2", "B"), ("v2", "C")]
"""The fixed plan's family in each anomaly stage: every pair of the five groups its placement-v3 readings rest on."""


def test_fixed_plan_holds_twenty_comparisons_of_which_none_can_cross_at_three_repeats() -> None:
    """Boschloo's test (the default): 3/3 vs 0/3 is p = 0.031 on its own, but the fixed plan's readings rest on
    ten pairs in each of its two anomaly stages, held at α together: no outcome at n = 3 (or 2) crosses the
    family's first step; a complete difference does at n = 5. At temperature 0 each stage is one sample too."""
    review = _review(_data(FIXED))
    pairs = [(c.stage, c.group, c.other) for c in review.comparisons]
    assert review.test == "boschloo"
    assert pairs == [(s, g, o) for s in ("simple", "tool_continuation") for g, o in V3_PAIRS]
    assert review.family is not None and (review.family.name, review.family.comparisons) == ("findings", 20)
    assert review.family.size == 0 and not review.family.exact  # Bonferroni within a stage: an upper bound
    assert "adjusted for 20 comparisons (exact closed test; Bonferroni within each stage's pairs" in \
        review.family.statement and "which no outcome at these n can reach" in review.family.statement
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.n == 3 and c.smallestP == pytest.approx(1 / 32, rel=1e-6) and not c.separablePossible
               and c.nSeparable == 5 and c.nSeparableAlone == 3 for c in simple)
    later = [c for c in review.comparisons if c.stage == "tool_continuation"]
    assert all(c.n == 2 and c.smallestP == pytest.approx(1 / 8, rel=1e-6) and not c.separablePossible
               for c in later)
    assert all(c.power is None and c.nForPower is None and not c.gated for c in review.comparisons)
    assert _kinds(review) == [("not-separable", "simple", True), ("not-separable", "tool_continuation", True),
                              ("one-sample", "simple", True), ("one-sample", "tool_continuation", True),
                              ("one-sample", "conversation", False)]
    simple_text, simple_sample = review.findings[0].statement, review.findings[2].statement
    assert simple_text.startswith("simple: at n = 3 per group A vs v1, B vs v1, C vs v1, v2 vs v1, B vs A, C vs A, "
                                  "v2 vs A, C vs B, v2 vs B, v2 vs C cannot cross the family's first-step cut-off")
    assert "smallest two-sided Boschloo p any outcome can reach is 0.031 (3/3 vs 0/3)" in simple_text
    assert "a complete difference crosses it at n = 5 per group (5/5 vs 0/5: p = 0.0020)" in simple_text
    assert "the closed test can still call it separable at a p up to α" in simple_text
    assert review.findings[0].fix == "raise the repeats of simple to at least 5"
    assert "at temperature 0 this stage has one independent sample per group" in simple_sample
    assert review.problems == 4


def test_fixed_plan_judged_comparison_by_comparison_is_what_it_was() -> None:
    """``analysis.family: none``: each comparison at α on its own, as before the family: simple's 3 repeats can
    separate a complete difference (p = 0.031), tool_continuation's 2 cannot."""
    data = _data(FIXED)
    data["analysis"] = {"family": "none"}
    review = _review(data)
    assert review.family is not None and review.family.name == "none" and review.family.cutoff == 0.05
    assert "not adjusted for multiple comparisons" in review.family.statement
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.separablePossible and c.nSeparable == 3 and c.cutoff == 0.05 for c in simple)
    assert _kinds(review)[0] == ("not-separable", "tool_continuation", True)
    assert "separable at α = 0.05" not in review.findings[0].statement
    assert "cannot cross α = 0.05, whatever the model does" in review.findings[0].statement


def test_fixed_plan_with_fishers_test_can_separate_nothing() -> None:
    data = _data(FIXED)
    data["analysis"] = {"test": "fisher"}
    review = _review(data)
    assert review.test == "fisher"
    assert all(not c.separablePossible and c.nSeparable == 5 and c.nSeparableAlone == 4 for c in review.comparisons)
    assert _kinds(review)[:2] == [("not-separable", "simple", True), ("not-separable", "tool_continuation", True)]
    simple_text = review.findings[0].statement
    assert "cannot cross the family's first-step cut-off" in simple_text
    assert "smallest two-sided Fisher p any outcome can reach is 0.10 (3/3 vs 0/3)" in simple_text
    assert "crosses it at n = 5 per group (5/5 vs 0/5: p = 0.0079)" in simple_text
    assert review.findings[0].fix == "raise the repeats of simple to at least 5"
    assert ("even as sampled draws, a complete difference (3/3 vs 0/3, Fisher p = 0.10) cannot be separable at "
            "n = 3") in review.findings[2].statement
    assert review.problems == 4


def test_probe_plan_has_no_design_problem() -> None:
    """Its family: B vs A, C vs A, B vs C (tested after the first two) and v2 vs v1, at 20 per group: a
    first-step cut-off near 0.018, family-wise size 0.048."""
    review = _review(_data(PROBE))
    assert review.problems == 0 and review.findings == []
    assert [(c.group, c.other, c.gated) for c in review.comparisons] == [
        ("B", "A", False), ("C", "A", False), ("B", "C", True), ("v2", "v1", False)]
    assert all(c.separablePossible and c.n == 20 for c in review.comparisons)
    assert review.family is not None and review.family.exact and review.family.comparisons == 4
    assert 0.017 < review.family.cutoff < 0.019 and 0.047 < review.family.size <= 0.05
    assert all(c.cutoff == review.family.cutoff for c in review.comparisons if not c.gated)
    assert next(c for c in review.comparisons if c.gated).cutoff is None


def test_review_is_camel_case_json_with_its_problem_count() -> None:
    dumped = _review(_data(FIXED)).model_dump(mode="json")
    assert dumped["problems"] == 4 and dumped["alpha"] == 0.05 and dumped["targetPower"] == 0.8
    assert dumped["test"] == "boschloo" and dumped["sequential"] == []
    assert {"smallestP", "separablePossible", "nSeparable", "nForPower", "otherN", "cutoff", "gated", "powerAlone",
            "nForPowerAlone", "nSeparableAlone"} <= set(dumped["comparisons"][0])
    assert {"name", "method", "comparisons", "cutoff", "size", "exact", "statement"} <= set(dumped["family"])


def test_a_review_written_before_the_family_still_reads() -> None:
    old = _review(_data(PROBE)).model_dump(mode="json")
    del old["family"]
    for c in old["comparisons"]:
        for key in ("cutoff", "gated", "powerAlone", "nForPowerAlone", "nSeparableAlone"):
            del c[key]
    again = DesignReview.model_validate(old)
    assert again.family is None and not again.comparisons[0].gated and again.comparisons[0].cutoff is None


def test_expected_effect_gives_power_at_the_familys_cutoff_and_alone() -> None:
    data = _data(PROBE)
    data["analysis"] = {"effect": {"control": 0.9, "treatment": 0.3}, "test": "fisher"}
    review = _review(data)
    assert review.problems == 0
    held = [c for c in review.comparisons if not c.gated]
    assert all(c.power == pytest.approx(0.9667, abs=1e-4) and c.nForPower == 12 for c in held)
    assert all(c.powerAlone == pytest.approx(0.9787, abs=1e-4) and c.nForPowerAlone == 12 for c in review.comparisons)
    data["stages"][0]["repeats"] = 8
    review = _review(data)
    (finding,) = review.findings
    assert (finding.kind, finding.problem, finding.fix) == ("underpowered", True, "raise the repeats of simple to 12")
    assert "the exact power of B vs A, C vs A, v2 vs v1 at n = 8 per group is 0.46" in finding.statement
    assert "crossing the family's cut-off" in finding.statement
    assert "80% power needs n = 12 per group; tested at α on its own it would be 0.60" in finding.statement
    del data["analysis"]["test"]  # Boschloo: 10 per group on its own, 12 held in the family
    (finding,) = _review(data).findings
    assert finding.fix == "raise the repeats of simple to 12" and "(two-sided Boschloo, α = 0.05" in finding.statement
    assert "and n = 10 per group would reach 80%" in finding.statement


def test_plan_alpha_decides_what_can_be_separable() -> None:
    data = _data(FIXED)
    data["analysis"] = {"alpha": 0.2, "test": "fisher", "family": "none"}
    review = _review(data)
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.separablePossible and c.nSeparable == 3 for c in simple)  # 0.10 < 0.2
    assert [f.stage for f in review.findings if f.kind == "not-separable"] == ["tool_continuation"]
    data["analysis"] = {"alpha": 0.01}
    loose, strict = _review(_data(PROBE)).family, _review({**_data(PROBE), "analysis": {"alpha": 0.01}}).family
    assert loose is not None and strict is not None and strict.cutoff < 0.01 < loose.cutoff


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
