"""Issue 11: every finding sentence names its n and Fisher p; the sentinel sentence only where the
control passed the stage; no sentence about a stage without trials (X-40, X-41)."""

from __future__ import annotations

import re

import pytest

from harness.analysis import derive_findings
from harness.plan import FindingsSpec
from tests.harness.analysis.test_findings_rules import FAIL, INCONCLUSIVE, counts_of, outcomes

SPEC = FindingsSpec()
P = re.compile(r"Fisher p = \d\.\d\d")


Counts = dict[str, dict[str, tuple[int, int]]]


def finding(o: dict[str, dict[str, str]], counts: Counts | None = None):  # type: ignore[no-untyped-def]
    return derive_findings(SPEC, o, counts=counts or counts_of(o), maintenance_ran=True,
                           model_kind="real").findings[0]


@pytest.mark.parametrize("o", [
    outcomes({"A"}), outcomes({"A", "C"}), outcomes({"A", "B"}), outcomes({"A", "B", "C"}), outcomes({"v2"}),
    outcomes(set()), outcomes({"C"}), outcomes({"A"}, v1=FAIL), outcomes({"v2"}, A={"simple": "inconclusive"}),
])
def test_every_statement_names_n_and_fisher_p(o: dict[str, dict[str, str]]) -> None:
    f = finding(o)
    head = f.statement.removesuffix(f.sentinelStatement)
    with_p = P.search(head) and re.search(r"\b\d/3\b", head)
    assert with_p or ("no Fisher p" in head and "n = 0" in head), head  # a group without a verdict: said so


def test_the_brief_example_reads_with_counts_and_p() -> None:
    f = finding(outcomes({"A"}))
    assert "simple: A 0/3 vs B 3/3, Fisher p = 0.10, not separable at this n" in f.statement


def test_real_counts_are_used_not_statuses() -> None:
    o = outcomes({"A"})
    counts = counts_of(o)
    counts["A"]["simple"] = (1, 5)
    counts["B"]["simple"] = (5, 5)
    assert "A 1/5 vs B 5/5, Fisher p = 0.05" in finding(o, counts).statement


def test_control_without_any_verdict_says_there_is_no_p() -> None:
    f = finding(outcomes({"A"}, v1={"simple": "inconclusive"}))
    assert f.rule.endswith("control-inconclusive")
    assert "no Fisher p" in f.statement and "n = 0" in f.statement


def test_sentinel_reproduction_needs_the_control_to_pass_the_stage() -> None:
    f = finding(outcomes({"A", "v2"}))
    assert f.sentinelReproduced is True
    assert "which the control v1 passed (rests on simple: v2 0/3 vs v1 3/3, Fisher p = 0.10" in f.sentinelStatement
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
    assert "it failed simple, which the control v1 passed" in f.sentinelStatement
    assert "tool_continuation" not in f.sentinelStatement


def test_no_sentence_about_a_stage_no_trial_ran() -> None:
    """A failed simple and never reached tool_continuation: no comparison in tool_continuation is stated."""
    f = finding(outcomes({"A"}))
    assert "tool_continuation: A" not in f.statement
    unknown = finding(outcomes({"A"}, v2=INCONCLUSIVE))
    assert unknown.sentinelReproduced is None
    assert unknown.sentinelStatement.startswith("Whether the sentinel v2 reproduced the anomaly is unknown")
