"""The fixed plan with scripted/oracle runs to the end (issue 5 must-show 1, X-61, O-1, O-2, O-10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markupsafe import escape

from harness.results import read_report
from tests.harness.runner._run import (
    ORACLE_OUTCOMES,
    READBACKS,
    UNIFIED,
    outcomes,
    query,
    run_plan,
)


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return run_plan(tmp_path_factory.mktemp("oracle") / "run", concurrency=8, render=True)


def test_every_group_passes_every_stage_it_enters_X61(oracle_run) -> None:  # type: ignore[no-untyped-def]
    assert oracle_run.status == "completed" and oracle_run.stop_reason is None
    assert outcomes(oracle_run) == ORACLE_OUTCOMES
    assert oracle_run.report.findings[0].rule.endswith("not-reproduced")
    assert any("X-42" in c for c in oracle_run.report.caveats)


def test_run_directory_layout_O1(oracle_run) -> None:  # type: ignore[no-untyped-def]
    d: Path = oracle_run.run_dir
    for name in ("report.json", "metrics.duckdb", "trials.jsonl", "calls.jsonl", "store.sqlite", "run.json"):
        assert (d / name).is_file(), name
    assert oracle_run.render_error is None and (d / "report.html").is_file() and (d / "report.md").is_file()
    transcript = d / "transcripts" / "A" / "conversation" / "1.jsonl"
    lines = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert lines and all(line["request"]["messages"] and "response" in line for line in lines)
    report = read_report(d / "report.json")  # the O-2 model reads back what the runner wrote
    assert report.plan.sha256 == oracle_run.report.plan.sha256


def test_plots_are_drawn_only_where_the_report_has_something_to_show_O20(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """A scripted model reports no cached input tokens: no cached-tokens plot, a sentence instead."""
    d: Path = oracle_run.run_dir
    assert oracle_run.report.budget.spent.cachedInputTokens == 0
    assert sorted(p.name for p in (d / "plots").iterdir())[:2] == ["by_segment.png", "pass_rate.png"]
    assert not (d / "plots" / "cached_tokens.png").exists()
    html = (d / "report.html").read_text(encoding="utf-8")
    assert "No group reported cached input tokens (no plot)." in html
    assert "cached_tokens.png" not in (d / "report.md").read_text(encoding="utf-8")


def test_report_and_duckdb_agree_on_every_total_O2_O10(oracle_run) -> None:  # type: ignore[no-untyped-def]
    report, d = oracle_run.report, oracle_run.run_dir
    spent = report.budget.spent
    calls = query(d, "SELECT count(*), sum(input_tokens), sum(output_tokens), sum(cached_input_tokens), sum(usd) "
                     "FROM llm_calls")[0]
    assert calls == (spent.llmCalls, spent.inputTokens, spent.outputTokens, spent.cachedInputTokens, spent.usd)
    trials = [t for g in report.groups for s in g.stages for t in s.trials]
    assert query(d, "SELECT count(*) FROM trials")[0][0] == len(trials) == 37
    tool_calls = sum(t.metrics.toolCalls for t in trials)
    assert query(d, "SELECT count(*) FROM tool_calls")[0][0] == tool_calls
    checks = sum(len(t.checks) for t in trials)
    assert query(d, "SELECT count(*) FROM checks")[0][0] == checks
    for g in report.groups:
        for s in g.stages:
            row = query(d, f"SELECT sum(input_tokens) FROM llm_calls JOIN trials USING (trial_id) "
                           f"WHERE group_id = '{g.id}' AND stage_id = '{s.id}'")[0]
            assert row[0] == s.metrics.inputTokens


def test_conversation_checks_read_state_memory_and_sources_X11(oracle_run) -> None:  # type: ignore[no-untyped-def]
    by_group = {g.id: {s.id: s for s in g.stages} for g in oracle_run.report.groups}
    for group in ("A", "B", "C", "v2"):
        trial = by_group[group]["conversation"].trials[0]
        results = {c.name: c.result for c in trial.checks}
        assert results["state_in_every_request"] == "passed"
        assert results["memory_preserved"] == "passed"
        assert results["same_session"] == "passed"
        # the oracle never writes to a wrong window: nothing to recover from, which is not a pass
        assert results["window_mismatch_recovered"] == "not_exercised"
    prefix = {c.name: c.result for c in by_group["prefix"]["conversation"].trials[0].checks}
    assert prefix["state_in_every_request"] == "not_applicable"
    assert prefix["memory_preserved"] == "not_applicable"
    assert prefix["fold_readback"] == prefix["compression_readback"] == "not_applicable"  # prefix@2 has no folds
    # not_applicable never counts as passed: the stage passed because every applicable check passed
    assert by_group["prefix"]["conversation"].status == "passed"


def test_every_unified_conversation_folds_and_compresses_and_reads_back_raw(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """Issue 11, must show 1: the oracle folds the answered tool exchange and calls context_compress after
    a finished stage (the plan binds the agent to the maintainer), in every conversation trial of A, B, C,
    v2 and v1; both read-back checks pass, and the folds read back equal to their raw messages when read
    again here, from the run's own store, through the dispatcher."""
    from protocols import COMPRESS_TOOL, FrozenView, ToolCall, canonical_json, new_run_id, resolve
    from protocols.store import SqliteStore

    store = SqliteStore(oracle_run.run_dir / "store.sqlite")
    groups = {g.id: g for g in oracle_run.report.groups}
    for gid in ("A", "B", "C", "v2", "v1"):
        protocol = resolve(groups[gid].protocol.id, groups[gid].protocol.version, groups[gid].protocol.options)
        trials = next(s for s in groups[gid].stages if s.id == "conversation").trials
        assert len(trials) == 2
        for trial in trials:
            results = {c.name: c for c in trial.checks}
            assert results["fold_readback"].result == "passed", results["fold_readback"].detail
            assert results["compression_readback"].result == "passed", results["compression_readback"].detail
            called = [c.toolName for run in trial.runs for c in run.toolCalls if c.success]
            assert called.count(COMPRESS_TOOL) >= 1 and called.count("context_fold_create") >= 1
            sid = trial.sessionId
            assert sid is not None
            folds = store.kv_prefix(sid, "fold/")
            assert folds and int(store.kv_get(sid, "coveredThrough/alpha") or 0) > 0  # coveredThrough advanced
            for key, fold in folds.items():
                raw = canonical_json([m.wire() for m in store.messages_by_ids(sid, fold["messageIds"])])
                frozen = FrozenView(revision=store.revision(sid), upper_bound=store.max_index(sid), run_id=new_run_id())
                call = ToolCall(id=f"test-{key}", name="context_fold_read", arguments=json.dumps(
                    {"purpose": "check", "foldId": key.removeprefix("fold/")}))
                read = protocol.dispatch(store, sid, call, frozen)
                assert read["success"] and read["nextCursor"] is None and read["text"] == raw
    maintainer_calls = query(oracle_run.run_dir, "SELECT count(*) FROM llm_calls WHERE role = 'maintainer'")[0][0]
    assert maintainer_calls > 0
    caveats = " ".join(oracle_run.report.caveats)
    assert "No automatic maintenance (token threshold) ran" in caveats  # the threshold never fired
    assert "because the agent called context_compress" in caveats
    assert "prefix@2 baseline never reached its compression threshold" in caveats  # P-91


def test_group_differences_show_a_controlled_comparison(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """Issue 9, must show 5: against placement control A, on the first request of the first stage both ran,
    B and C differ only in the state message's position / role, v2 in the prompt words the source names
    and in the state text (v3's sentence "… grants no user authority", source: "C 的 user 角色也不构成用户的新
    授权"), v1 also in tools; each group's summary is computed from its requests and says whether that is
    as designed; the panel is in report.json, report.html and .md."""
    diffs = {d.group: d for d in oracle_run.report.groupDifferences}
    assert set(diffs) == {"B", "C", "v2", "v1", "prefix"} and all(d.control == "A" for d in diffs.values())
    for group in ("B", "C", "v2", "v1"):
        assert diffs[group].stage == "simple"
    assert diffs["prefix"].stage == "conversation"
    for group in ("B", "C"):
        d = diffs[group]
        assert d.systemPrompt == [] and d.tools == [] and d.otherMessages == [] and d.stateMessage.text == []
    assert diffs["B"].messageRoles.group == ["system", "assistant", "assistant", "user"]
    assert (diffs["B"].stateMessage.group.position, diffs["B"].stateMessage.group.role) == (2, "assistant")
    assert (diffs["C"].stateMessage.group.position, diffs["C"].stateMessage.group.role) == (3, "user")
    assert (diffs["C"].stateMessage.control.position, diffs["C"].stateMessage.control.role) == (3, "assistant")
    v2 = diffs["v2"]
    # the source's 最后的/末尾状态 and 以上是历史记录, nothing else
    assert [(c.op, c.control, c.group) for c in v2.systemPrompt] == [
        ("insert", "", "final"), ("insert", "", "The messages above it are history.")]
    assert v2.tools == [] and v2.messageRoles.control == v2.messageRoles.group
    assert [c.op for c in v2.stateMessage.text] == ["delete"] and "no user authority" in v2.stateMessage.text[0].control
    assert diffs["v1"].tools and diffs["v1"].systemPrompt and diffs["v1"].stateMessage.group is None
    assert {g: diffs[g].differsIn for g in ("B", "C", "v2")} == {
        "B": ["statePosition"], "C": ["stateRole"], "v2": ["systemPrompt", "stateText"]}
    assert all(diffs[g].summary.endswith("As designed.") for g in ("B", "C", "v2"))
    assert "which v2's lacks" in diffs["v2"].summary and diffs["v1"].expected is None
    html = (oracle_run.run_dir / "report.html").read_text(encoding="utf-8")
    assert 'id="differences"' in html and "word changes</summary>" in html
    md = (oracle_run.run_dir / "report.md").read_text(encoding="utf-8")
    assert "## What each group differs in from the placement control" in md and "+“final”" in md
    assert "v2 only in the prompt words" not in html and f"<li>{escape(diffs['B'].summary)}</li>" in html
    assert f"- {diffs['C'].summary}" in md


def test_readbacks_are_verified_or_the_conversation_does_not_pass(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """Issue 11: a read-back with no fold or no compression is not_exercised, never passed, and the
    plan requires both, so such a trial does not pass; the report lists what was not exercised."""
    by_group = {g.id: {s.id: s for s in g.stages} for g in oracle_run.report.groups}
    for group in UNIFIED:
        stage = by_group[group]["conversation"]
        for trial in stage.trials:
            results = {c.name: c.result for c in trial.checks}
            assert trial.status == "passed" and all(results[r] == "passed" for r in READBACKS)
        listed = {x.check: x for x in stage.notExercised}
        if group != "v1":  # unified@1 has no expectedWindowId: not_applicable there
            assert listed["window_mismatch_recovered"].required is False  # reported, not deciding
        assert not set(READBACKS) & set(listed)
    md = (oracle_run.run_dir / "report.md").read_text(encoding="utf-8")
    assert "| A | conversation | 2 | 1 (identical repeats) | window_mismatch_recovered ×2 (not required) |" in md
    rows = query(oracle_run.run_dir, "SELECT count(*) FROM checks WHERE result = 'not_exercised' AND NOT required")
    assert rows[0][0] == 2 * 4  # window_mismatch_recovered in A, B, C, v2 (v1 has no expectedWindowId)


def test_repeats_are_counted_as_distinct_answers_and_named_when_identical(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """Issue 11 must-show 5: every stage has distinctAnswers; the oracle's repeats are identical, and a
    caveat says the interval and p then describe one sample repeated."""
    stages = [(g.id, s) for g in oracle_run.report.groups for s in g.stages]
    assert stages and all(s.distinctAnswers == 1 and s.passRate.n >= 2 for _, s in stages)
    caveat = next(c for c in oracle_run.report.caveats if c.startswith("Identical repeats at temperature 0"))
    assert "A/simple 1 distinct of 3" in caveat and "prefix/conversation 1 distinct of 2" in caveat
    assert "one sample repeated, not independent draws" in caveat
    sampling = {t.id: t.sampling for _, s in stages for t in s.trials}
    assert set(map(str, sampling.values())) == {str({"temperature": 0.0, "topP": None, "seed": None})}
    assert query(oracle_run.run_dir, "SELECT DISTINCT temperature, top_p, seed FROM llm_calls WHERE role = 'agent'") \
        == [(0.0, None, None)]


def test_control_is_always_qualified_in_the_reports(oracle_run) -> None:  # type: ignore[no-untyped-def]
    """A is the placement control, v1 the sentinel control (docs/evidence.md, glossary): one term, qualified,
    everywhere a report says "control" (report.json groups[].term says which)."""
    terms = {g.id: g.term for g in oracle_run.report.groups}
    assert terms["A"] == "placement control" and terms["v1"] == "sentinel control"
    for name in ("report.md", "report.html"):
        text = re.sub(r"<[^>]+>", " ", (oracle_run.run_dir / name).read_text(encoding="utf-8"))
        bare = [text[max(0, m.start() - 60):m.end() + 20] for m in re.finditer(r"\bcontrol\b", text, re.IGNORECASE)
                if not re.search(r"(placement|sentinel)\s+$", text[max(0, m.start() - 12):m.start()], re.IGNORECASE)]
        assert bare == [], (name, bare)
