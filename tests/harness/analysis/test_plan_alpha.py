"""The plan's ``analysis.alpha`` decides what is separable in every findings rule and comparison (X-41): each
comparison on its own here (``family: none``), the family's cut-off in test_family_findings.py."""

from __future__ import annotations

from harness.analysis import compare_with_control, cross_model_findings, derive_findings, derive_rate_findings, format_p
from harness.analysis._sweep_findings import StageOutcome
from harness.plan import FindingsSpec
from tests.harness.analysis.test_findings_rules import counts_of, outcomes


def test_placement_v3_reading_shown_at_a_looser_alpha() -> None:
    o = outcomes({"A"})  # A 0/3 vs B 3/3 and C 3/3: Fisher p = 0.10
    strict = derive_findings(FindingsSpec(), o, counts=counts_of(o), maintenance_ran=True, model_kind="real",
                             test="fisher", family="none")
    loose = derive_findings(FindingsSpec(), o, counts=counts_of(o), maintenance_ran=True, model_kind="real",
                            alpha=0.2, test="fisher", family="none")
    assert strict.findings[0].shown is False and "not shown at this n" in strict.findings[0].statement
    assert loose.findings[0].shown is True
    assert "A 0/3 vs B 3/3, Fisher p = 0.10, separable (p < 0.2)" in loose.findings[0].statement
    assert all(c.separable for c in loose.findings[0].restsOn)


def test_placement_rates_use_alpha() -> None:
    spec = FindingsSpec(rules="placement-rates", baselineGroup=None, baselineStage=None, anomalyStages=["simple"])
    passes = {"A": 8, "B": 9, "C": 16, "v2": 8, "v1": 19}  # C vs A: Boschloo p = 0.011, Fisher 0.022
    counts = {g: {"simple": (p, 20)} for g, p in passes.items()}
    status = {g: {"simple": "failed"} for g in passes}

    def rule(alpha: float) -> str:
        result = derive_rate_findings(spec, counts, status, model_kind="real", maintenance_ran=False,  # type: ignore[arg-type]
                                      alpha=alpha, family="none")
        return result.findings[0].rule + " | " + result.findings[0].statement

    assert rule(0.05).startswith("placement-rates/role-shown-to-help") and "separable (p < 0.05)" in rule(0.05)
    assert rule(0.01).startswith("placement-rates/no-separable-difference")
    assert rule(0.015).startswith("placement-rates/role-shown-to-help")  # Boschloo, the default: p = 0.011


def test_comparisons_and_sweep_use_alpha() -> None:
    counts = {"A": {"simple": (0, 3)}, "B": {"simple": (3, 3)}}
    (c,) = compare_with_control(counts, "A", ["simple"], ["A", "B"], alpha=0.2, test="fisher")
    assert c.separable is True and c.statement.endswith("separable (p < 0.2).")
    per_model = {"m": {"v1": {"simple": StageOutcome("passed", 3, 3)}, "A": {"simple": StageOutcome("failed", 0, 3)}}}
    found = cross_model_findings(FindingsSpec(anomalyStages=["simple"]), per_model, ["A", "v1"], {}, alpha=0.2,
                                 test="fisher")
    group = next(f for f in found if f.group == "A")
    assert group.perModel[0].separable is True and "separable (p < 0.2)" in group.perModel[0].clause


def test_format_p_never_rounds_across_the_plans_alpha() -> None:
    assert format_p(0.0996) == "0.10"
    assert format_p(0.0996, alpha=0.1) == "0.0996"  # below 0.1: never printed as 0.10
