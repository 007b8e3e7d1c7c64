"""Plans the harness was not tuned to (issue 11): English wording, a Chinese paraphrase with other
numbers, ids, dates and more repeats, a stale ``memory_preserved`` and a plan no scripted model can
read. Fixtures in ``plans/``; the stale variant is the paraphrase with the fixed plan's "6900" left in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.rendering._workflow import infrastructure
from harness.runner import RunOutcome
from tests.harness.runner._run import outcomes, query, run_plan

PLANS = Path(__file__).parent / "plans"
ALL_STAGES = {"simple": "passed", "tool_continuation": "passed", "conversation": "passed"}


def variant(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLANS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def trials(outcome: RunOutcome) -> list[Any]:
    return [t for g in outcome.report.groups for s in g.stages for t in s.trials]


def answers(outcome: RunOutcome, group: str, stage: str) -> list[str | None]:
    g = next(g for g in outcome.report.groups if g.id == group)
    return [r.finalAnswer for r in next(s for s in g.stages if s.id == stage).trials[0].runs]


@pytest.mark.parametrize("name, groups", [("english-variant", ["C", "v1", "prefix"]),
                                          ("paraphrase-zh-variant", ["A", "v1", "prefix"])])
def test_the_oracle_passes_plans_it_was_not_tuned_to(name: str, groups: list[str], tmp_path: Path) -> None:
    """Three views per plan (a state block, the v1 header alone, the prefix@2 history): reading the task
    does not depend on the protocol, and the suite stays fast (the CLI runs every group: docs/write-a-plan.md)."""
    outcome = run_plan(tmp_path / "run", data=variant(name), groups=groups, concurrency=16)
    assert outcome.status == "completed"
    assert outcomes(outcome) == {g: ALL_STAGES for g in groups[:2]} | {"prefix": {"conversation": "passed"}}
    stages = [s for g in outcome.report.groups for s in g.stages]
    assert {s.passRate.n for s in stages if s.id == "simple"} == {4}  # the variant's repeats, not the fixed plan's
    assert all(s.distinctAnswers == 1 for s in stages)
    # the oracle folds and compresses here too, so both read-backs are verified; only the wrong-window
    # recovery, which a careful model never needs, is listed as not exercised (and not required)
    conv = next(s for s in outcome.report.groups[0].stages if s.id == "conversation")
    assert {x.check: x.required for x in conv.notExercised} == {"window_mismatch_recovered": False}
    for trial in conv.trials:
        results = {c.name: c.result for c in trial.checks}
        assert results["fold_readback"] == results["compression_readback"] == "passed"
    if name == "english-variant":  # answered in the request's language
        assert answers(outcome, "C", "conversation") == [
            "Quote done: equipment 10000 + installation 1400, total 11400.",
            "Installation scheduled from 2026-11-05 to 2026-11-09 (3 working days).",
            "The quote total of 11400 is within the budget of 12000 (600 to spare); the existing quote was not "
            "overwritten."]
    else:  # a quote request naming the budget is answered with it
        assert answers(outcome, "v1", "conversation")[0].endswith("总价 11400 元。在客户 12000 元预算内。")  # type: ignore[union-attr]
        assert answers(outcome, "v1", "tool_continuation") == [
            "项目 PRJ-2026-07：预算 20000 元，已支出 12500 元，剩余预算 7500 元。"]


def test_a_stale_memory_text_makes_v1_not_pass_with_stale_intent(tmp_path: Path) -> None:
    """Must show 2: the variant's quote is 11400, memory_preserved still looks for the fixed plan's 6900.
    stale-intent writes the schedule into alpha under v1; nothing held 6900, so the check verified
    nothing: not_exercised, and the v1 conversation does not pass (it used to pass as not_applicable)."""
    data = variant("paraphrase-zh-variant")
    conversation = next(s for s in data["stages"] if s["id"] == "conversation")
    memory = next(c for c in conversation["trialChecks"] if c["name"] == "memory_preserved")
    memory["contains"] = ["6900"]
    outcome = run_plan(tmp_path / "run", "scripted/stale-intent", data, stages=["conversation"], groups=["v1"],
                       concurrency=16)
    v1 = next(s for g in outcome.report.groups if g.id == "v1" for s in g.stages)
    assert v1.status == "failed" and v1.passRate.passes == 0
    for t in v1.trials:
        check = next(c for c in t.checks if c.name == "memory_preserved")
        assert check.result == "not_exercised" and "no window memory held ['6900']" in check.detail
        assert t.failureMode == "not_exercised"
    assert query(outcome.run_dir, "SELECT DISTINCT result, required FROM checks JOIN trials USING (trial_id) "
                                  "WHERE check_name = 'memory_preserved' AND group_id = 'v1'") == [
        ("not_exercised", True)]


def test_with_the_right_memory_text_stale_intent_fails_v1_for_the_wrong_window_write(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/stale-intent", variant("paraphrase-zh-variant"),
                       stages=["conversation"], groups=["C", "v1"], concurrency=16)
    by_group = {g.id: g.stages[0] for g in outcome.report.groups}
    assert by_group["C"].status == "passed"  # the mismatch was refused and recovered from
    assert {c.name: c.result for c in by_group["C"].trials[0].checks}["window_mismatch_recovered"] == "passed"
    assert by_group["v1"].status == "failed" and by_group["v1"].failureModes == {"tool_misuse": 3}
    detail = next(c.detail for c in by_group["v1"].trials[0].checks if c.name == "memory_preserved")
    assert "no longer holds ['11400']" in detail and "holds forbidden" in detail


def test_a_plan_the_oracle_cannot_read_is_a_set_up_error_never_a_model_failure(tmp_path: Path) -> None:
    """Must show 4: no trial failed; each ended ``error`` naming the scripted model and the input, was
    not retried, did not count toward provider_unhealthy; no finding says a sentinel reproduced anything."""
    outcome = run_plan(tmp_path / "run", data=variant("unreadable-english"), concurrency=16)
    assert outcome.status == "completed" and outcome.stop_reason is None
    ran = trials(outcome)
    assert ran and all(t.status == "error" for t in ran)
    assert all(t.attempt == 0 for t in ran)  # infraRetries = 1, yet nothing was retried
    first = ran[0]
    assert first.error is not None
    assert first.error.startswith("unsupported_input: scripted/oracle cannot read its input")
    assert "Draft a short, polite email to Globex" in first.error
    assert {s.status for g in outcome.report.groups for s in g.stages} == {"inconclusive", "not_reached"}
    finding = outcome.report.findings[0]
    assert finding.rule.endswith("control-inconclusive") and finding.sentinelReproduced is None
    assert "reproduced the anomaly:" not in finding.statement
    assert any(c.startswith("The scripted model scripted/oracle does not support this plan's wording: 23 trial(s)")
               for c in outcome.report.caveats)
    assert query(outcome.run_dir, "SELECT DISTINCT status FROM llm_calls") == [("unsupported_input",)]
    # the infrastructure section names the set-up error as such and does not claim a retry (infraRetries = 1)
    infra = {e.group: e for e in outcome.report.infrastructure}
    assert infra["A"].errorKinds == {"unsupported_input": 4} and infra["A"].retriedTrials == 0
    assert outcome.report.infraRetries == 1
    total = infrastructure(outcome.report.model_dump(mode="json"))["total"]
    assert ("No error trial was retried as a new trial; 23 are set-up errors (the scripted model cannot read this "
            "input), never retried") in total and "are retried as new trials" not in total
    assert query(outcome.run_dir, "SELECT count(*) FROM trials WHERE status = 'failed'") == [(0,)]


def test_identical_repeats_of_a_plan_with_more_repeats_do_not_make_the_reading_shown(tmp_path: Path) -> None:
    """The English variant's 4 repeats give A 0/4 vs B 4/4, Boschloo p = 0.0078: separable counts on their own
    (``family: none``), but at temperature 0 the prefill-continuer's 4 answers per group are one (distinct answers
    1), so the finding stays "consistent with …, not shown" and says why (X-41, X-52). In the plan's family of
    ten comparisons (simple alone) the counts are not separable either: adjusted p = 0.078."""
    held = run_plan(tmp_path / "held", "scripted/prefill-continuer", data=variant("english-variant"),
                    groups=["A", "B", "C", "v2", "v1"], stages=["simple"], concurrency=16)
    (finding,) = held.report.findings
    assert finding.rule.endswith("trailing-assistant-implicated") and finding.shown is False
    assert "A 0/4 vs B 4/4, Boschloo p = 0.0078, adjusted p = 0.078, not separable at this n" in finding.statement
    alone = variant("english-variant")
    alone["analysis"] = {**alone.get("analysis", {}), "family": "none"}
    outcome = run_plan(tmp_path / "run", "scripted/prefill-continuer", data=alone,
                       groups=["A", "B", "C", "v2", "v1"], stages=["simple"], concurrency=16)
    (finding,) = outcome.report.findings
    assert finding.rule.endswith("trailing-assistant-implicated") and finding.shown is False
    assert "A 0/4 vs B 4/4, Boschloo p = 0.0078, separable (p < 0.05)" in finding.statement
    assert "not shown: identical repeats are one sample repeated (simple: A 0/4 vs B 4/4 are at most A 0/1 vs B " \
           "1/1 independent samples, Boschloo p = 0.50;" in finding.statement
    assert "each remove the failure" not in finding.statement
