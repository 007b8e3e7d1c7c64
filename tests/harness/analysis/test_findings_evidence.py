"""Every finding sentence names its n and its p with the test's name, and the p adjusted for the report's family
of comparisons (every pair of the five groups in each anomaly stage under placement-v3: twenty in the fixed
plan); the sentinel sentence only where the control passed the stage; no sentence about a stage without trials
(X-40, X-41). Worded here with Fisher's test, under which nothing at n = 3 is separable; Boschloo's (the
default) in test_boschloo_findings.py."""

from __future__ import annotations

import re

import pytest

from harness.analysis import derive_findings
from harness.plan import FindingsSpec
from tests.harness.analysis.test_findings_rules import FAIL, INCONCLUSIVE, counts_of, outcomes

SPEC = FindingsSpec()
P = re.compile(r"Fisher p (= [01]\.\d+|< 0\.001)")


Counts = dict[str, dict[str, tuple[int, int]]]


def finding(o: dict[str, dict[str, str]], counts: Counts | None = None,  # type: ignore[no-untyped-def]
            family: str = "findings"):
    return derive_findings(SPEC, o, counts=counts or counts_of(o), maintenance_ran=True, test="fisher",
                           model_kind="real", family=family).findings[0]  # type: ignore[arg-type]


@pytest.mark.parametrize("o", [
    outcomes({"A"}), outcomes({"A", "C"}), outcomes({"A", "B"}), outcomes({"A", "B", "C"}), outcomes({"v2"}),
    outcomes(set()), outcomes({"C"}), outcomes({"A"}, v1=FAIL), outcomes({"v2"}, A={"simple": "inconclusive"}),
])
def test_every_statement_names_n_and_fisher_p(o: dict[str, dict[str, str]]) -> None:
    f = finding(o)
    head = f.statement.removesuffix(f.sentinelStatement)
    with_p = P.search(head) and re.search(r"\b\d/3\b", head)
    # a rule that compares nothing (no group failed) names every group's n instead
    counts_only = f.restsOn == [] and f.shown is None and all(f"{g} 3/3" in head for g in ("A", "B", "C", "v2", "v1"))
    # a claim about the sentinel control alone names only its own figures, no comparison it does not make
    own_only = f.restsOn == [] and f.rule.endswith(("control-failed", "control-inconclusive")) and \
        (re.search(r"rests on simple: v1 \d/3", head) or "n = 0" in head)
    assert with_p or counts_only or own_only or ("no p-value" in head and "n = 0" in head), head


def test_the_brief_example_reads_with_counts_and_p() -> None:
    f = finding(outcomes({"A"}))
    assert re.search(r"simple: A 0/3 vs B 3/3, Fisher p = 0\.10, adjusted p = 0\.\d+, not separable at this n",
                     f.statement)
    assert all(c.pValue <= c.adjustedP and c.family == "findings" for c in f.restsOn)  # type: ignore[operator]


def test_real_counts_are_used_not_statuses() -> None:
    """1/5 vs 5/5 gives p = 0.0476: printed with two significant digits, never rounded up to 0.05; separable on
    its own at α, not in the fixed plan's family of twenty comparisons."""
    o = outcomes({"A"})
    counts = counts_of(o)
    counts["A"]["simple"] = (1, 5)
    counts["B"]["simple"] = (5, 5)
    assert "A 1/5 vs B 5/5, Fisher p = 0.048, separable (p < 0.05)" in finding(o, counts, family="none").statement
    held = finding(o, counts)
    assert re.search(r"A 1/5 vs B 5/5, Fisher p = 0\.048, adjusted p = 0\.\d+, not separable at this n",
                     held.statement)
    assert held.shown is False and "(of the differences it rests on" not in held.statement


# a finding words its claim by its evidence -------------------------------------------------------
COMPARATIVE = {  # failed groups → (rule, its reading as stated when shown)
    frozenset({"A"}): ("trailing-assistant-implicated", "the trailing assistant placement is implicated: moving the "
                       "state before the history (B) and giving it the user role (C) each pass more often than it"),
    frozenset({"A", "C"}): ("position-implicated", "the position of the state block is implicated"),
    frozenset({"A", "B"}): ("role-implicated", "the role of the state block is implicated"),
    frozenset({"A", "B", "C"}): ("every-placement-fails", "every placement passes less often than the sentinel "
                                 "control v1"),
    frozenset({"v2"}): ("not-reproduced-under-v3-prompt", "may explain it"),
    frozenset({"C"}): ("placement-worse-than-control", "that placement is worse than the placement control"),
}


@pytest.mark.parametrize("failed", list(COMPARATIVE))
def test_a_reading_not_separable_at_this_n_is_only_consistent_with_the_trials(failed: frozenset[str]) -> None:
    """The reviewer's case: A 0/3 vs B 3/3 (p = 0.10) must not read "each remove the failure"."""
    rule, reading = COMPARATIVE[failed]
    f = finding(outcomes(set(failed)))
    assert f.rule == f"placement-v3/{rule}" and f.shown is False
    assert f.statement.startswith("In these trials ")
    head = f.statement.removesuffix(f.sentinelStatement)
    assert ": consistent with " in head and head.rstrip().endswith("not shown at this n.")
    assert reading not in head
    assert f.restsOn and all(not c.separable and c.n == 3 for c in f.restsOn)


@pytest.mark.parametrize("failed", list(COMPARATIVE))
def test_a_reading_is_stated_only_when_every_difference_it_claims_is_separable(failed: frozenset[str]) -> None:
    rule, reading = COMPARATIVE[failed]
    o = outcomes(set(failed))
    f = finding(o, counts_of(o, n=8))  # 0/8 vs 8/8: p < 0.001
    assert f.rule == f"placement-v3/{rule}" and f.shown is True
    head = f.statement.removesuffix(f.sentinelStatement)
    assert reading in head and "consistent with" not in head and "not shown" not in head.split(": ")[-1]
    assert "Fisher p < 0.001, adjusted p < 0.001, separable (adjusted p < 0.05)" in head
    assert f.restsOn and all(c.separable and c.pValue < 0.001 for c in f.restsOn)


def test_no_reading_says_a_difference_it_did_not_test_is_absent() -> None:
    """X-40's "changing its role alone does not" and "placement is not the remedy" claim differences no
    comparison tested: the readings say "not shown" instead, never "does not"."""
    for failed in COMPARATIVE:
        o = outcomes(set(failed))
        f = finding(o, counts_of(o, n=8))
        assert " does not" not in f.statement and "not the remedy" not in f.statement, f.statement
    position = finding(outcomes({"A", "C"}), counts_of(outcomes({"A", "C"}), n=8))
    assert "whether the user role alone (C vs A) helps is not among the differences it rests on" in \
        position.doesNotShow


def test_a_reading_with_only_some_differences_separable_says_which() -> None:
    o = outcomes({"A"})
    counts = counts_of(o)
    counts["A"]["simple"], counts["B"]["simple"], counts["C"]["simple"] = (0, 12), (12, 12), (1, 3)
    f = finding(o, counts)
    assert f.shown is False
    assert "consistent with the trailing assistant placement being implicated" in f.statement
    assert "not shown at this n (of the differences it rests on, only A vs B is separable)" in f.statement
    assert [(c.group, c.other, c.separable) for c in f.restsOn] == [("A", "B", True), ("A", "C", False)]


def test_a_difference_in_the_wrong_direction_does_not_show_the_reading() -> None:
    """Separable, but the "failed" group passes more often: nothing the reading claims is shown."""
    o = outcomes({"A"})
    counts = counts_of(o)
    counts["A"]["simple"], counts["B"]["simple"], counts["C"]["simple"] = (7, 8), (0, 8), (0, 8)
    assert finding(o, counts).shown is False


def test_the_sentinel_reproduced_in_these_trials_is_not_shown_at_this_n() -> None:
    f = finding(outcomes({"A", "v2"}))
    assert f.sentinelStatement.startswith("The sentinel v2 (unified@2) reproduced the anomaly in these trials")
    assert f.sentinelStatement.endswith("that v2 fails more often than v1 is not shown at this n.")
    o = outcomes({"A", "v2"})
    shown = finding(o, counts_of(o, n=8))
    assert shown.sentinelStatement.startswith("The sentinel v2 (unified@2) reproduced the anomaly: it failed simple")
    assert "not shown" not in shown.sentinelStatement


def test_control_without_any_verdict_says_there_is_no_p() -> None:
    f = finding(outcomes({"A"}, v1={"simple": "inconclusive"}))
    assert f.rule.endswith("control-inconclusive")
    assert "n = 0" in f.statement and "Fisher" not in f.statement.removesuffix(f.sentinelStatement)


def test_a_failing_sentinel_control_rests_on_its_own_figures_only() -> None:
    """The claim is that v1 failed: its basis is v1's n, not a comparison with A that claims nothing."""
    f = finding(outcomes({"A"}, v1=FAIL))
    assert f.rule.endswith("control-failed") and f.restsOn == []
    head = f.statement.removesuffix(f.sentinelStatement)
    assert "(rests on simple: v1 0/3 | tool_continuation: v1 0/3)" in head or "(rests on simple: v1 0/3)" in head
    assert "vs A" not in head


def test_sentinel_reproduction_needs_the_control_to_pass_the_stage() -> None:
    f = finding(outcomes({"A", "v2"}))
    assert f.sentinelReproduced is True
    assert ("which the sentinel control v1 passed (rests on simple: v2 0/3 vs v1 3/3, Fisher p = 0.10, adjusted p ="
            in f.sentinelStatement)
    # the control failed the stage the sentinel failed: not "reproduced", not interpretable
    f = finding(outcomes({"A", "v2"}, v1=FAIL))
    assert f.sentinelReproduced is None
    assert "reproduced the anomaly" not in f.statement
    assert "not interpretable" in f.sentinelStatement and "control v1 did not pass that stage" in f.sentinelStatement


def test_sentinel_passing_is_not_read_where_the_control_failed() -> None:
    f = finding(outcomes(set(), v1=FAIL))
    assert f.sentinelReproduced is None and "did not reproduce" not in f.statement
    assert "not interpretable" in f.sentinelStatement


def test_sentinel_read_only_in_the_stages_the_control_passed() -> None:
    """v2 failed both stages; the control passed simple but not tool_continuation."""
    o = outcomes(set(), v1={"simple": "passed", "tool_continuation": "inconclusive"},
                 v2={"simple": "failed", "tool_continuation": "failed"})
    f = finding(o)
    assert f.sentinelReproduced is True
    assert "it failed simple, which the sentinel control v1 passed" in f.sentinelStatement
    assert "tool_continuation" not in f.sentinelStatement


def test_no_sentence_about_a_stage_no_trial_ran() -> None:
    """A failed simple and never reached tool_continuation: no comparison in tool_continuation is stated."""
    f = finding(outcomes({"A"}))
    assert "tool_continuation: A" not in f.statement
    unknown = finding(outcomes({"A"}, v2=INCONCLUSIVE))
    assert unknown.sentinelReproduced is None
    assert unknown.sentinelStatement.startswith("Whether the sentinel v2 reproduced the anomaly is unknown")


def test_identical_repeats_do_not_show_a_difference_their_counts_separate() -> None:
    """At temperature 0, A 0/8 vs B 8/8 (Fisher p < 0.001, separable in the family as if the repeats were draws)
    with every group's 8 answers identical: one sample repeated, at most 0/1 vs 1/1 independent samples
    (p = 1.0): not shown."""
    o = outcomes({"A", "v2"})
    counts, one = counts_of(o, n=8), counts_of(o, n=1)
    f = derive_findings(SPEC, o, counts=counts, samples=one, maintenance_ran=True, model_kind="scripted",
                        test="fisher").findings[0]
    assert f.shown is False
    assert "A 0/8 vs B 8/8, Fisher p < 0.001, adjusted p < 0.001, separable (adjusted p < 0.05)" in f.statement
    assert ("consistent with the trailing assistant placement being implicated (B and C each passing more often "
            "than A), not shown: identical repeats are one sample repeated (simple: A 0/8 vs B 8/8 are at most A 0/1 "
            "vs B 1/1 independent samples, Fisher p = 1.0;") in f.statement
    assert f.sentinelStatement.endswith("that v2 fails more often than v1 is not shown: identical repeats are one "
                                        "sample repeated (simple: v2 0/8 vs v1 8/8 are at most v2 0/1 vs v1 1/1 "
                                        "independent samples, Fisher p = 1.0).")
    distinct = derive_findings(SPEC, o, counts=counts_of(o, n=8), samples=counts_of(o, n=8), maintenance_ran=True,
                               model_kind="real").findings[0]
    assert distinct.shown is True  # as many distinct answers as trials: independent, the reading stands
