"""Issue 4, must show 1 and 2: the fixed scenario on one root session, in process and over HTTP."""

from __future__ import annotations

import pytest

from harness.models import make_model
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from protocols import ToolCall
from tests.helpers.engine import SCENARIO, SIMPLE, VARIANTS, converse, make_engine


def _tools(run) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.name for c in run.tool_calls]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_oracle_solves_the_three_turns_on_one_root_session(variant: str) -> None:
    """E-1, X-61: three run_send_input calls on ONE session; every answer has the expected numbers."""
    engine = make_engine(variant)
    t1, t2, t3 = converse(engine, SCENARIO)
    assert {t1.session_id, t2.session_id, t3.session_id} == {t1.session_id}
    assert len({t1.run_id, t2.run_id, t3.run_id}) == 3
    assert all(r.status == "completed" for r in (t1, t2, t3))
    assert "quote_calculate" in _tools(t1) and "6900" in (t1.final_answer or "")
    assert "schedule_plan" in _tools(t2)
    assert "2026-10-16" in (t2.final_answer or "") and "10-19" in (t2.final_answer or "")
    assert "6900" in (t3.final_answer or "") and "预算内" in (t3.final_answer or "")
    if variant != "prefix":
        memory = engine.store.kv_get(t1.session_id, "window/alpha")["workingMemory"]
        assert "6900" in memory and "10-19" not in memory


def test_every_assistant_message_records_its_frozen_view() -> None:
    """P-5, E-3: each model-produced message carries the revision, upper bound and run it saw."""
    engine = make_engine("C")
    runs = converse(engine, SCENARIO)
    messages = engine.store.all_messages(runs[0].session_id)
    for msg in messages:
        if msg.role == "assistant":
            assert msg.frozen_view is not None and msg.frozen_view.upper_bound < msg.index
            assert msg.frozen_view.run_id == msg.run_id
    assert [m.index for m in messages] == list(range(1, len(messages) + 1))  # P-2 gapless


@pytest.mark.parametrize("variant", ["v1", "C"])
def test_same_conversation_over_http_gives_the_same_messages(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """X-64, E-4: openai/<name> with --api-base to serve-scripted reproduces the in-process run."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-server-needs-any-key")
    local = make_engine(variant)
    local_runs = converse(local, SCENARIO)
    with running_server(resolve_model=get_scripted, model="oracle") as base_url:
        remote = make_engine(variant, "openai/oracle", chat=make_model("openai/oracle", api_base=base_url))
        remote_runs = converse(remote, SCENARIO)
        served = fetch_stats(base_url)["requests"]
    assert [r.final_answer for r in remote_runs] == [r.final_answer for r in local_runs]
    assert [_tools(r) for r in remote_runs] == [_tools(r) for r in local_runs]
    strip = [(m.role, m.kind, m.window_id, m.text(), [(c.name, c.arguments) for c in m.tool_calls or ()])
             for m in local.store.all_messages(local_runs[0].session_id)]
    strip_remote = [(m.role, m.kind, m.window_id, m.text(), [(c.name, c.arguments) for c in m.tool_calls or ()])
                    for m in remote.store.all_messages(remote_runs[0].session_id)]
    assert strip_remote == strip
    assert served == sum(r.steps for r in remote_runs)
    assert all(c.usage.input_tokens > 0 and c.usage.output_tokens > 0 for r in remote_runs for c in r.calls)


@pytest.mark.parametrize(("variant", "correct"), [
    ("A", False), ("v2", False), ("B", True), ("C", True), ("v1", True), ("prefix", True)])
def test_prefill_continuer_goes_off_topic_only_behind_a_trailing_assistant(variant: str, correct: bool) -> None:
    """X-62: the v2 symptom appears under A and v2 and nowhere else."""
    (run,) = converse(make_engine(variant, "scripted/prefill-continuer"), [SIMPLE])
    assert run.status == "completed"
    assert ("7650" in (run.final_answer or "")) is correct


@pytest.mark.parametrize(("variant", "correct"), [
    ("A", True), ("v2", True), ("B", True), ("C", False), ("v1", True), ("prefix", True)])
def test_last_user_follower_fails_under_c_only(variant: str, correct: bool) -> None:
    """X-62: the risk of placement C: the state block is the last user-role message."""
    (run,) = converse(make_engine(variant, "scripted/last-user-follower"), [SIMPLE])
    assert ("7650" in (run.final_answer or "")) is correct


@pytest.mark.parametrize("variant", ["v2", "A", "B", "C"])
def test_stale_intent_is_rejected_then_recovers_under_v2_and_v3(variant: str) -> None:
    """X-62, P-74: the stale write is refused with context_window_mismatch, nothing changes, the run finishes."""
    engine = make_engine(variant, "scripted/stale-intent")
    runs = converse(engine, SCENARIO)
    mismatches = [c for c in runs[2].tool_calls if c.error_code == "context_window_mismatch"]
    assert mismatches and mismatches[0].result["error"]["currentWindowId"] == "alpha"
    assert runs[2].status == "completed" and "6900" in (runs[2].final_answer or "")
    memory = engine.store.kv_get(runs[0].session_id, "window/alpha")["workingMemory"]
    assert "6900" in memory and "2026-10-16" not in memory


def test_stale_intent_corrupts_alphas_memory_under_v1() -> None:
    """X-62: the v1 symptom — nothing stops the stale write; alpha's memory now holds beta's schedule."""
    engine = make_engine("v1", "scripted/stale-intent")
    runs = converse(engine, SCENARIO)
    assert not any(c.error_code == "context_window_mismatch" for r in runs for c in r.tool_calls)
    memory = engine.store.kv_get(runs[0].session_id, "window/alpha")["workingMemory"]
    assert "2026-10-16" in memory or "10-19" in memory


def test_repeater_repeats_a_call() -> None:
    """X-62, X-50: the same read call with the same arguments twice before the answer."""
    (run,) = converse(make_engine("v1", "scripted/repeater"), ["请查询项目 P-17 的预算和已支出，然后告诉我剩余预算。"])
    signatures = [(c.name, c.arguments) for c in run.tool_calls]
    assert len(signatures) > len(set(signatures))
    assert "2100" in (run.final_answer or "")


def test_chaos_produces_each_structured_error_and_still_finishes() -> None:
    """E-5, E-6, X-62: malformed JSON, unknown tool, two calls in a step, over-long summary — all answers."""
    engine = make_engine("v2", "scripted/chaos")
    runs = converse(engine, SCENARIO)
    codes = {c.error_code for r in runs for c in r.tool_calls}
    assert {"invalid_arguments", "unknown_tool", "tool_call_limit_exceeded"} <= codes
    assert any(c.name == "context_fold_create" and not c.success for r in runs for c in r.tool_calls)
    assert all(r.status == "completed" for r in runs)
    assert "6900" in (runs[0].final_answer or "")
    engine.protocol.project(engine.store, runs[0].session_id,  # pairing still valid after every mistake
                            engine.store.all_messages(runs[0].session_id)[-1].frozen_view, engine.agent)
    assert ToolCall  # imported for type clarity in failures
