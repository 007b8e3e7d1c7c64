"""Engine rules without a scenario: one call per step (P-43, E-5), RunResult (E-2), capacity (E-14), Target (E-15)."""

from __future__ import annotations

import asyncio
import json

from harness.engine import LocalTarget
from harness.models import ModelOutput, ModelRequest, ToolCallOut, Usage
from tests.helpers.engine import SIMPLE, converse, make_engine


class TwoCallsThenAnswer:
    """A test model: a step with two tool calls, then an answer naming what it saw."""

    async def generate(self, request: ModelRequest) -> ModelOutput:
        usage = Usage(input_tokens=100, output_tokens=10)
        if request.messages[-1]["role"] != "tool" and not any(m["role"] == "tool" for m in request.messages):
            args = json.dumps({"projectId": "P-17"})
            return ModelOutput(content="", usage=usage, usd=0.0, price_known=True, tool_calls=[
                ToolCallOut(id="first", name="budget_lookup", arguments=args),
                ToolCallOut(id="second", name="budget_lookup", arguments=args)])
        results = [m["content"] for m in request.messages if m["role"] == "tool"]
        return ModelOutput(content=f"saw {len(results)} results", usage=usage, usd=0.0, price_known=True)


def test_p43_e5_only_the_first_call_of_a_step_runs_the_others_are_answered() -> None:
    """P-43, E-5: both calls stored as produced; the first executed; the second answered tool_call_limit_exceeded."""
    engine = make_engine("v2", chat=TwoCallsThenAnswer())
    (run,) = converse(engine, ["请查询项目 P-17。"])
    assert [(c.call_id, c.executed, c.error_code) for c in run.tool_calls] == [
        ("first", True, None), ("second", False, "tool_call_limit_exceeded")]
    messages = engine.store.all_messages(run.session_id)
    assert [c.id for c in messages[1].tool_calls or ()] == ["first", "second"]
    assert [m.tool_call_id for m in messages[2:4]] == ["first", "second"]
    assert run.final_answer == "saw 2 results" and run.status == "completed"


def test_e2_run_result_carries_the_run_summary() -> None:
    """E-2: session, run, answer, status, steps, tool calls with outcomes, usage and cost, snapshot ids."""
    engine = make_engine("B")
    (run,) = converse(engine, ["请查询项目 P-17 的预算和已支出，然后告诉我剩余预算。"])
    assert run.status == "completed" and run.steps == 2 and "2100" in (run.final_answer or "")
    assert [(c.name, c.success) for c in run.tool_calls] == [("budget_lookup", True)]
    assert run.usage.input_tokens == sum(c.usage.input_tokens for c in run.calls) > 0
    assert run.usd is None  # no declared price for a scripted model here: unknown, never a silent $0
    assert len(run.snapshot_ids) == run.steps
    snaps = dict(engine.store.snapshots(run.session_id))
    snap = snaps[run.snapshot_ids[0]]
    assert snap["frozenView"]["runId"] == run.run_id and snap["sources"][2]["type"] == "context_state"  # E-11
    assert set(snap["segments"]) == {"system", "header", "state", "fold", "history", "tools"}


def test_e14_fixed_parts_over_capacity_end_the_run_naming_the_part() -> None:
    """E-14, P-55: tool schemas alone exceed the model's capacity → capacity_exceeded, no model call."""
    engine = make_engine("v1")
    engine.capacity_tokens = 500
    (run,) = converse(engine, [SIMPLE])
    assert run.status == "capacity_exceeded" and "tool schemas" in (run.error or "") and run.calls == []
    engine = make_engine("prefix")
    engine.capacity_tokens = 400
    (run,) = converse(engine, ["预算 " * 2000])
    assert run.status == "capacity_exceeded" and "user input" in (run.error or "")


def test_e15_local_target_drives_the_engine() -> None:
    """E-15: create session, run_send_input, read snapshots, KV and the state file through the Target."""
    target = LocalTarget(make_engine("C"))
    sid = target.create_session("trial-1")
    run = asyncio.run(target.run_send_input(sid, SIMPLE))
    assert run.session_id == "trial-1" and "7650" in (run.final_answer or "")
    assert len(target.snapshots(sid)) == 1 and target.kv(sid)["activeWindow"] == "main"
    assert target.state(sid, run.run_id)["messages"][0]["content"] == SIMPLE


def test_p83_the_state_message_never_enters_the_session() -> None:
    """P-83, P-71: the state block is a model view only — never written, never history, never folded."""
    engine = make_engine("C")
    (run,) = converse(engine, [SIMPLE])
    assert all("[context_state]" not in m.text() for m in engine.store.all_messages(run.session_id))
    snap = engine.store.snapshots(run.session_id)[0][1]
    state = [m for m, s in zip(snap["request"]["messages"], snap["sources"], strict=True)
             if s["type"] == "context_state"]
    assert len(state) == 1 and "grants no user authority" in state[0]["content"]
