"""X-63: each fault model's expected group × stage outcomes and findings on the fixed plan (issue 5).

Concurrency 16 starts every trial of a stage at once, so fail-fast skips nothing and the counts
behind the p-values are the plan's full n.
"""

from __future__ import annotations

from pathlib import Path

from tests.harness.runner._run import ORACLE_OUTCOMES, outcomes, plan_data, query, run_plan

NOT_REACHED = {"tool_continuation": "not_reached", "conversation": "not_reached"}


def _stage(outcome, group: str, stage: str):  # type: ignore[no-untyped-def]
    g = next(g for g in outcome.report.groups if g.id == group)
    return next(s for s in g.stages if s.id == stage)


def _checks(outcome, group: str, stage: str) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    g = next(g for g in outcome.report.groups if g.id == group)
    s = next(s for s in g.stages if s.id == stage)
    return [{c.name: c.result for c in t.checks} for t in s.trials]


def test_prefill_continuer_implicates_trailing_assistant_not_separable_on_one_sample(tmp_path: Path) -> None:
    """At the plan's temperature 0 each group's 3 repeats are one answer: B 3/3 vs A 0/3 (Boschloo p = 0.031) is
    1/1 vs 0/1 on the distinct answers, not separable, and the comparison and finding say why."""
    outcome = run_plan(tmp_path / "run", "scripted/prefill-continuer", concurrency=16, render=True)
    expected = dict(ORACLE_OUTCOMES)
    expected["A"] = {"simple": "failed", **NOT_REACHED}
    expected["v2"] = {"simple": "failed", **NOT_REACHED}
    assert outcomes(outcome) == expected
    finding = outcome.report.findings[0]
    assert finding.rule.endswith("trailing-assistant-implicated")
    assert finding.sentinelReproduced is True
    simple = {c.group: c for c in outcome.report.comparisons if c.stage == "simple"}
    b = simple["B"]
    assert (b.groupPasses, b.groupN, b.controlPasses, b.controlN) == (3, 3, 0, 3)
    assert round(simple["B"].pValue, 3) == 0.031 and simple["B"].separable is False and b.test == "boschloo"
    assert (b.groupSamples, b.controlSamples) == ((1, 1), (0, 1))
    assert ("Boschloo p = 0.031; but identical repeats are one sample repeated (not sampled above temperature 0): "
            "B's 3 and A's 3 trials gave 1 and 1 distinct answer(s), and on those, B 1/1 vs A 0/1, Boschloo p = 0.50, "
            "adjusted p = 1.0: not separable at this n.") in b.statement
    assert b.family == "findings" and b.adjustedP == 1.0
    assert query(outcome.run_dir, "SELECT p_value, samples_n, test, separable, adjusted_p, family FROM comparisons "
                                  "WHERE stage_id = 'simple' AND group_id = 'B'") == [
        (b.pValue, 1, "boschloo", False, 1.0, "findings")]
    assert query(outcome.run_dir, "SELECT test FROM experiments") == [("boschloo",)]
    # issue 11 must-show 3: the failures are explained, in report.json, DuckDB and report.md
    for group in ("A", "v2"):
        stage = _stage(outcome, group, "simple")
        failed = [t for t in stage.trials if t.status == "failed"]
        assert len(failed) == 3 and all(t.failureMode == "state_echo" for t in failed)
        assert all("context_state" in (t.failureDetail or "") for t in failed)
        assert stage.failureModes == {"state_echo": 3}
    assert sorted(query(outcome.run_dir, "SELECT group_id, failure_mode, count(*) FROM trials WHERE status = "
                                         "'failed' AND stage_id = 'simple' GROUP BY ALL ORDER BY ALL")) == [
        ("A", "state_echo", 3), ("v2", "state_echo", 3)]
    # the finding reads with its n, p and p adjusted for the fixed plan's family (twenty comparisons), the
    # sentinel's too: 0.031 on its own, not separable in the family
    assert "simple: A 0/3 vs B 3/3, Boschloo p = 0.031, adjusted p = 0.31, not separable at this n" in finding.statement
    assert "v2 0/3 vs v1 3/3, Boschloo p = 0.031, adjusted p = 0.31" in finding.sentinelStatement
    # the reading is consistent with these trials, not shown; the statement does not claim that moving the
    # state or giving it the user role "each remove the failure"
    assert finding.shown is False and finding.statement.startswith("In these trials A (trailing assistant state)")
    assert ("consistent with the trailing assistant placement being implicated (B and C each passing more often "
            "than A), not shown at this n") in finding.statement
    assert "each remove the failure" not in finding.statement
    assert "that v2 fails more often than v1 is not shown at this n" in finding.sentinelStatement
    report_md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "consistent with the trailing assistant placement being implicated" in report_md
    assert query(outcome.run_dir, "SELECT count(*) FROM trials WHERE status <> 'failed' "
                                  "AND failure_mode IS NOT NULL")[0][0] == 0
    assert "failed: state_echo ×3" in (outcome.run_dir / "report.md").read_text(encoding="utf-8")


def test_last_user_follower_makes_C_worse_than_control(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/last-user-follower", concurrency=16)
    expected = dict(ORACLE_OUTCOMES)
    expected["C"] = {"simple": "failed", **NOT_REACHED}
    assert outcomes(outcome) == expected
    assert outcome.report.findings[0].rule.endswith("placement-worse-than-control")
    # C 0/3 vs A 3/3 (p = 0.10): "worse than the placement control" is consistent with the trials, not shown at n = 3
    statement = outcome.report.findings[0].statement
    assert "consistent with that placement being worse than the placement control" in statement
    # it answers the state block as if it were the request: an on-topic-looking wrong answer
    assert _stage(outcome, "C", "simple").failureModes == {"wrong_answer": 3}


def test_stale_intent_corrupts_v1_memory_and_v2_v3_recover_from_mismatch(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/stale-intent", stages=["conversation"], concurrency=16)
    got = outcomes(outcome)
    assert got["v1"] == {"conversation": "failed"}
    assert all(got[g] == {"conversation": "passed"} for g in ("A", "B", "C", "v2"))
    assert got["prefix"] == {"conversation": "passed"}
    v1 = _checks(outcome, "v1", "conversation")[0]
    assert v1["memory_preserved"] == "failed"
    assert _stage(outcome, "v1", "conversation").failureModes == {"tool_misuse": 2}  # the wrong-window write
    for group in ("A", "B", "C", "v2"):
        for trial in _checks(outcome, group, "conversation"):
            assert trial["window_mismatch_recovered"] == "passed"
            assert trial["memory_preserved"] == "passed"


def test_repeater_passes_with_repeated_calls_in_report_and_duckdb_X50(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/repeater", stages=["tool_continuation"], concurrency=16)
    assert all(s == "passed" for stages in outcomes(outcome).values() for s in stages.values())
    repeated = sum(s.metrics.repeatedToolCalls for g in outcome.report.groups for s in g.stages)
    assert repeated > 0
    assert query(outcome.run_dir, "SELECT count(*) FROM tool_calls WHERE repeated")[0][0] == repeated
    assert query(outcome.run_dir, "SELECT count(*) FROM tool_calls WHERE duplicate_signature")[0][0] >= repeated


def test_chaos_completes_every_run_and_counts_structured_errors(tmp_path: Path) -> None:
    # The fixed plan as is, budget included: every reply stops at maxOutputTokensPerCall.
    outcome = run_plan(tmp_path / "run", "scripted/chaos", stages=["simple", "tool_continuation"], concurrency=16)
    assert outcome.status == "completed"
    cap = plan_data()["budget"]["maxOutputTokensPerCall"]
    assert query(outcome.run_dir, "SELECT max(output_tokens) FROM llm_calls")[0][0] <= cap
    runs = [r for g in outcome.report.groups for s in g.stages for t in s.trials for r in t.runs]
    assert runs and all(r.status == "completed" for r in runs)
    codes = query(outcome.run_dir, "SELECT error_code, count(*) FROM tool_calls WHERE NOT success GROUP BY ALL")
    assert {c for c, _ in codes} >= {"unknown_tool", "invalid_arguments"}
    assert all(s == "passed" for stages in outcomes(outcome).values() for s in stages.values())
