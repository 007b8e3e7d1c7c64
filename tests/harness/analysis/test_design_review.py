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


def test_fixed_plan_can_separate_nothing() -> None:
    review = _review(_data(FIXED))
    pairs = [(c.stage, c.group, c.other) for c in review.comparisons]
    expected = [("B", "A"), ("C", "A"), ("v2", "v1")]
    assert pairs == [(s, g, o) for s in ("simple", "tool_continuation") for g, o in expected]
    simple = [c for c in review.comparisons if c.stage == "simple"]
    assert all(c.n == 3 and c.smallestP == pytest.approx(0.1) and not c.separablePossible for c in simple)
    later = [c for c in review.comparisons if c.stage == "tool_continuation"]
    assert all(c.n == 2 and c.smallestP == pytest.approx(1 / 3) and not c.separablePossible for c in later)
    assert all(c.nSeparable == 4 and c.power is None and c.nForPower is None for c in review.comparisons)
    assert _kinds(review) == [("not-separable", "simple", True), ("not-separable", "tool_continuation", True),
                              ("one-sample", "simple", True), ("one-sample", "tool_continuation", True),
                              ("one-sample", "conversation", False)]
    simple_text, later_text = review.findings[0].statement, review.findings[1].statement
    assert ("simple: at n = 3 per group no outcome of B vs A, C vs A, v2 vs v1 can be separable at α = 0.05"
            in simple_text)
    assert "smallest two-sided Fisher p any outcome can reach is 0.10 (3/3 vs 0/3)" in simple_text
    assert "separable at n = 4 per group (4/4 vs 0/4: p = 0.029)" in simple_text
    assert "is 0.33 (2/2 vs 0/2)" in later_text
    assert review.findings[0].fix == "raise the repeats of simple to at least 4"
    assert "at temperature 0 this stage has one independent sample per group" in review.findings[2].statement
    assert review.problems == 4


def test_probe_plan_has_no_design_problem() -> None:
    review = _review(_data(PROBE))
    assert review.problems == 0 and review.findings == []
    assert len(review.comparisons) == 3 and all(c.separablePossible and c.n == 20 for c in review.comparisons)


def test_review_is_camel_case_json_with_its_problem_count() -> None:
    dumped = _review(_data(FIXED)).model_dump(mode="json")
    assert dumped["problems"] == 4 and dumped["alpha"] == 0.05 and dumped["targetPower"] == 0.8
    assert {"smallestP", "separablePossible", "nSeparable", "nForPower", "otherN"} <= set(dumped["comparisons"][0])


def test_expected_effect_gives_power_and_the_n_for_it() -> None:
    data = _data(PROBE)
    data["analysis"] = {"effect": {"control": 0.9, "treatment": 0.3}}
    review = _review(data)
    assert review.problems == 0
    assert all(c.power == pytest.approx(0.9787, abs=1e-4) and c.nForPower == 12 for c in review.comparisons)
    data["stages"][0]["repeats"] = 8
    review = _review(data)
    (finding,) = review.findings
    assert (finding.kind, finding.problem, finding.fix) == ("underpowered", True, "raise the repeats of simple to 12")
    assert "the exact power of B vs A, C vs A, v2 vs v1 at n = 8 per group is 0.60" in finding.statement
    assert "80% power needs n = 12 per group" in finding.statement


def test_plan_alpha_decides_what_can_be_separable() -> None:
    data = _data(FIXED)
    data["analysis"] = {"alpha": 0.2}
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
    """Looks 4, 8, …, 20 with O'Brien–Fleming at α 0.05: 4/4 vs 0/4 (p = 0.029) cannot cross look 1's
    boundary (1.2e-05), 8/8 vs 0/8 (p = 0.00016) crosses look 2's (0.0019); looks that end at n = 3 cannot
    stop at all, a design problem."""
    from harness.plan import parse_plan
    from tests.harness.runner.test_sequential_stopping import sequential_plan

    (note,) = [f for f in review_design(parse_plan(sequential_plan())[0]).findings if f.kind == "sequential"]
    assert not note.problem and note.stage == "simple"
    assert "the earliest it can stop is look 2 (n = 8 per group), where a complete difference gives p = 0.00016 " \
           "< boundary 0.0019; at the look before (n = 4) p = 0.029 does not cross 1.2e-05" in note.statement
    data = sequential_plan()
    simple = next(s for s in data["stages"] if s["id"] == "simple")
    simple.update(repeats=3, sequential={**simple["sequential"], "looks": [2, 3]})
    (stuck,) = [f for f in review_design(parse_plan(data)[0]).findings if f.kind == "sequential"]
    assert stuck.problem and "can show no separable difference" in stuck.statement and stuck.fix
