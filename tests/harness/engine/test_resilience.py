"""Issue 4, must show 3, 4 and 5: provider faults, secrets, archive, maintenance."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import make_model
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from protocols import FrozenView, HostOptions, MaintenanceOptions, MessageDraft, ToolCall
from tests.helpers.engine import SCENARIO, SIMPLE, T1, T2, T3, converse, make_engine

KEY = "sk-PLANTED-9f8e7d6c5b4a-DO-NOT-LEAK"


def _fast_model(base_url: str):  # type: ignore[no-untyped-def]
    return make_model("openai/oracle", api_base=base_url, max_retries=3, backoff_base_s=0.01, max_backoff_s=0.05)


def test_e7_injected_faults_are_retried_and_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """E-7, X-64: 429 (Retry-After), 500, a timeout and a dropped connection are retried; the run completes."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    schedule = {1: "429", 2: "500", 3: "timeout", 5: "drop"}
    with running_server(
            resolve_model=get_scripted, model="oracle",
            fault_schedule=schedule, retry_after_s=0.05, timeout_fault_s=2) as url:
        engine = make_engine("A", "openai/oracle", chat=_fast_model(url), timeout_seconds=0.5)
        (run,) = converse(engine, [SIMPLE])
        stats = fetch_stats(url)
    assert run.status == "completed" and "7650" in (run.final_answer or "")
    assert sum(c.retries for c in run.calls) >= 3
    snapshots = [data for _, data in engine.store.snapshots(run.session_id)]
    classes = {r["error_class"] for s in snapshots for r in s["retries"]}
    assert {"RateLimitError", "InternalServerError"} <= classes
    assert stats["requests"] > len(run.calls)


def test_e7_a_call_that_keeps_failing_ends_the_run_as_infrastructure(monkeypatch: pytest.MonkeyPatch) -> None:
    """E-7, X-31: retries exhausted → status error, classified infrastructure, not a model failure."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with running_server(
            resolve_model=get_scripted, model="oracle",
            fault_rate=1.0, fault_kinds=("500",)) as url:
        engine = make_engine("C", "openai/oracle", chat=_fast_model(url))
        (run,) = converse(engine, [SIMPLE])
    assert (run.status, run.error_class) == ("error", "infrastructure")
    assert run.final_answer is None and run.calls[-1].retries == 4  # every failed attempt: 1 + 3 retries


def test_o30_a_planted_key_reaches_no_output_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """O-30, Q-20: converse over HTTP with a recognisable key; scan every file written for it."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with running_server(
            resolve_model=get_scripted, model="oracle") as url:
        out = CliRunner().invoke(app, ["converse", "--protocol", "unified@2", "--model", "openai/oracle",
                                       "--api-base", url, "--input", T1, "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    files = list(tmp_path.rglob("*"))
    assert {f.name for f in files} >= {"state.json", "snapshots.jsonl", "runs.json"}
    snapshots = (tmp_path / "snapshots.jsonl").read_text(encoding="utf-8")
    assert '"providerRequest"' in snapshots  # the provider-level body is kept (E-11) ...
    for f in files:
        assert KEY not in f.read_text(encoding="utf-8"), f  # ... without the key
    assert KEY not in out.output


def _projection(engine, session_id: str) -> str:  # type: ignore[no-untyped-def]
    store = engine.store
    frozen = FrozenView(revision=store.revision(session_id), upper_bound=store.max_index(session_id),
                        run_id=store.all_messages(session_id)[-1].run_id)
    return json.dumps(engine.protocol.project(store, session_id, frozen, engine.agent).wire(), ensure_ascii=False)


def test_e12_archiving_mid_conversation_changes_no_projection_and_no_attribution() -> None:
    """E-12, P-20, P-44: archive after T1 and after T2; the run is identical to one never archived."""
    plain = make_engine("v2")
    plain_runs = converse(plain, SCENARIO)
    archived = make_engine("v2")
    sid = archived.create_session()
    for text in SCENARIO:
        archived.store.archive(sid, archived.store.max_index(sid))
        asyncio.run(archived.run_send_input(sid, text))
    a = [(m.window_id, m.kind, m.text()) for m in plain.store.all_messages(plain_runs[0].session_id)]
    b = [(m.window_id, m.kind, m.text()) for m in archived.store.all_messages(sid)]
    assert a == b
    assert _projection(plain, plain_runs[0].session_id).replace(plain_runs[0].session_id, "S") == \
        _projection(archived, sid).replace(sid, "S")


def test_e12_call_archived_before_its_result_recovers_in_the_callers_window() -> None:
    """E-12, P-44: a window switch whose result was never written; archived; the next run writes it in alpha."""
    engine = make_engine("v2")
    sid = engine.create_session()
    asyncio.run(engine.run_send_input(sid, T1))  # now in alpha
    store = engine.store
    frozen = FrozenView(revision=store.revision(sid), upper_bound=store.max_index(sid),
                        run_id=store.all_messages(sid)[-1].run_id)
    args = {"purpose": "排期", "expectedWindowId": "alpha", "windowId": "beta", "goal": "安排安装", "input": "排期"}
    call = store.append(sid, MessageDraft(run_id=frozen.run_id, window_id="alpha", role="assistant", kind="tool_call",
                                          tool_calls=(ToolCall(id="crash_open_beta", name="context_window_open",
                                                               arguments=json.dumps(args)),), frozen_view=frozen))
    store.archive(sid, call.index)  # the process died here: call archived, result never written
    run = asyncio.run(engine.run_send_input(sid, T2))
    result = store.all_messages(sid)[call.index]
    assert (result.kind, result.tool_call_id, result.window_id) == ("tool_result", "crash_open_beta", "alpha")
    assert json.loads(result.text())["success"] is True
    assert store.kv_get(sid, "activeWindow") == "beta"
    assert run.status == "completed" and "10-19" in (run.final_answer or "")


def test_p50_low_threshold_compresses_and_the_compressed_fold_still_reads_back() -> None:
    """P-50 … P-54, E-13: maintenance runs, a checkpoint is written, a fold becomes compressed, read-back is raw."""
    engine = make_engine("v1")
    sid = engine.create_session()
    asyncio.run(engine.run_send_input(sid, T1))  # no maintenance yet: the agent folds first
    store = engine.store
    quote = next(m for m in store.all_messages(sid) if m.tool_calls and m.tool_calls[0].name == "quote_calculate")
    frozen = FrozenView(revision=store.revision(sid), upper_bound=store.max_index(sid), run_id=quote.run_id)
    fold_args = {"purpose": "折叠报价计算", "fromIndex": quote.index, "throughIndex": quote.index + 1,
                 "summary": "quote_calculate: 3×2000 + 3×300 = 6900"}
    created = engine.protocol.dispatch(store, sid, ToolCall(id="fold1", name="context_fold_create",
                                                            arguments=json.dumps(fold_args)), frozen)
    assert created["success"], created
    engine.host = HostOptions(maintenance=MaintenanceOptions(thresholdTokens=50, keepRecentGroups=2))
    runs = [asyncio.run(engine.run_send_input(sid, t)) for t in (T2, T3)]
    assert all(r.status == "completed" for r in runs) and "6900" in (runs[-1].final_answer or "")
    assert any(m.status == "compressed" for r in runs for m in r.maintenance)
    assert any(c.role == "maintainer" for r in runs for c in r.calls)
    checkpoint = store.kv_get(sid, "checkpoint/alpha")
    assert checkpoint and store.kv_get(sid, "coveredThrough/alpha") >= quote.index + 1
    frozen = FrozenView(revision=store.revision(sid), upper_bound=store.max_index(sid), run_id=runs[-1].run_id)
    listed = engine.protocol.dispatch(store, sid, ToolCall(id="list1", name="context_fold_list",
                                                           arguments='{"purpose": "check", "windowId": "alpha"}'),
                                      frozen)
    fold = listed["folds"][0]
    assert fold["compressed"] is True
    read = engine.protocol.dispatch(store, sid, ToolCall(id="read1", name="context_fold_read",
                                                         arguments=json.dumps({"purpose": "check",
                                                                               "foldId": fold["foldId"]})), frozen)
    raw = json.loads(read["text"])
    assert [m["id"] for m in raw] == [quote.id, f"m{quote.index + 1}"] and read["nextCursor"] is None
    assert all(s.type != "context_fold" for s in engine.protocol.project(store, sid, frozen, engine.agent).sources)
