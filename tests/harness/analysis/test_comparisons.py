"""X-41 comparisons with the placement control and X-43 comparisons with the prefix@2 baseline."""

from __future__ import annotations

import pytest

from harness.analysis import ConversationOutcome, compare, compare_with_baseline, compare_with_control


def test_x41_statement_has_n_wilson_the_test_and_not_separable_wording() -> None:
    c = compare("simple", "B", (3, 3), "A", (0, 3), test="fisher")
    assert (c.groupPasses, c.groupN, c.controlPasses, c.controlN) == (3, 3, 0, 3)
    assert c.pValue == pytest.approx(0.10) and c.separable is False and c.test == "fisher"
    assert c.groupWilson95 is not None and round(c.groupWilson95[0], 2) == 0.44
    assert c.statement == (
        "simple: B 3/3 (Wilson 95% 0.44–1.00) vs A 0/3 (Wilson 95% 0.00–0.56), Fisher p = 0.10: "
        "not separable at this n."
    )
    c = compare("simple", "B", (3, 3), "A", (0, 3))  # Boschloo's test, the default
    assert c.test == "boschloo" and c.separable is True and c.samplesP is None
    assert c.statement.endswith("Boschloo p = 0.031: separable (p < 0.05).")


def test_x41_identical_repeats_are_one_sample_and_never_separable() -> None:
    """At temperature 0 three identical answers per group are one sample: 1/1 vs 0/1 (p = 0.50)."""
    c = compare("simple", "B", (3, 3), "A", (0, 3), samples=((1, 1), (0, 1)))
    assert c.pValue == pytest.approx(1 / 32, rel=1e-6) and c.samplesP == pytest.approx(0.5) and c.separable is False
    assert (c.groupSamples, c.controlSamples) == ((1, 1), (0, 1))
    assert ("but identical repeats are one sample repeated (not sampled above temperature 0): B's 3 and A's 3 "
            "trials gave 1 and 1 distinct answer(s), and on those, B 1/1 vs A 0/1, Boschloo p = 0.50: not separable "
            "at this n.") in c.statement
    drawn = compare("simple", "B", (3, 3), "A", (0, 3), samples=((3, 3), (0, 3)))  # every answer distinct
    assert drawn.separable is True and drawn.samplesP is None and drawn.groupSamples is None


def test_x41_separable_when_p_below_005() -> None:
    c = compare("simple", "B", (10, 10), "A", (0, 10))
    assert c.separable is True and "separable (p < 0.05)" in c.statement


def test_x41_no_verdict_trials_not_compared() -> None:
    c = compare("tool_continuation", "C", (0, 0), "A", (2, 2))
    assert c.pValue is None and c.separable is None and c.groupWilson95 is None
    assert "not compared: C has no trial with a verdict" in c.statement


def test_x41_every_group_against_control_per_stage() -> None:
    counts = {
        "A": {"simple": (0, 3)},
        "B": {"simple": (3, 3), "tool_continuation": (2, 2)},
        "v1": {"simple": (3, 3), "tool_continuation": (2, 2)},
        "prefix": {"conversation": (2, 2)},
    }
    rows = compare_with_control(counts, "A", ["simple", "tool_continuation"], ["A", "B", "v1", "prefix"])
    assert [(r.stage, r.group) for r in rows] == [("simple", "B"), ("simple", "v1")]


def test_x43_baseline_comparison_is_data() -> None:
    outcomes = {
        "A": ConversationOutcome(status="passed", passes=2, n=2, trials=2, repeatedToolCalls=1, inputTokens=9000,
                                 outputTokens=600, usd=0.02, maintenanceRuns=0),
        "prefix": ConversationOutcome(status="passed", passes=2, n=2, trials=2, repeatedToolCalls=3,
                                      inputTokens=5000, outputTokens=400, usd=0.01),
        "v1": ConversationOutcome(status="not_reached", usd=None),
    }
    rows = compare_with_baseline("conversation", outcomes, "prefix", ["A", "v1", "prefix"])
    assert [r.group for r in rows] == ["A", "v1"]
    a = rows[0]
    assert (a.repeatedToolCallsDelta, a.totalTokensDelta) == (-2, 4200)
    assert a.usdDelta == pytest.approx(0.01) and a.usdRatio == pytest.approx(2.0)
    assert "repeated tool calls 1 vs 3" in a.statement
    assert rows[1].usdDelta is None and rows[1].usdRatio is None and "cost unknown" in rows[1].statement
    assert compare_with_baseline("conversation", outcomes, "nobody", ["A"]) == []
