"""Issue 11: a check whose precondition never occurred is ``not_exercised``, never passed, and never
``not_applicable`` (which only says the protocol lacks the capability). A trial whose required check
was not exercised does not pass (failure mode not_exercised); ``required: false`` reports it only.

Each check's not_exercised path on real trials: the engine and scripted/oracle, judged by the
runner's own ``run_trial``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.engine import MaintenanceRecord, RunResult
from harness.judging._checks import TrialView, trial_check
from harness.judging._diagnose import diagnose
from harness.models import ChatModel, ModelOutput, ModelRequest, Usage
from harness.plan import StageSpec
from harness.results._records import TrialRecord
from harness.runner._trial import run_trial
from tests.helpers.engine import SCENARIO, SIMPLE, make_engine


def stage(checks: list[dict[str, Any]], turns: list[str] = SCENARIO) -> StageSpec:
    return StageSpec.model_validate({"id": "s", "repeats": 1, "turns": [{"input": t} for t in turns],
                                     "trialChecks": checks})


class Plain:
    """A model that answers every request in text and never calls a tool: it makes no fold, asks for no
    compression and never writes to a wrong window, whatever the oracle learns to do."""

    async def generate(self, request: ModelRequest) -> ModelOutput:
        return ModelOutput(content="好的。", finish_reason="stop", usage=Usage(input_tokens=10, output_tokens=2),
                           usd=0.0, price_known=True)


def trial(variant: str, checks: list[dict[str, Any]], turns: list[str] = SCENARIO,
          chat: ChatModel | None = None) -> TrialRecord:
    return asyncio.run(run_trial(make_engine(variant, chat=chat), variant, stage(checks, turns), 1))


def result(record: TrialRecord, name: str) -> tuple[str, str, bool]:
    check = next(c for c in record.checks if c.name == name)
    return check.result, check.detail, check.required


def test_memory_preserved_with_nothing_stored_is_not_exercised_and_the_trial_does_not_pass() -> None:
    """The stale-contains case: the quote is 6900, the plan looks for 7650 in the memories."""
    record = trial("v2", [{"name": "memory_preserved", "afterTurn": 1, "contains": ["7650"]}])
    outcome, detail, required = result(record, "memory_preserved")
    assert (outcome, required) == ("not_exercised", True)
    assert "no window memory held ['7650'] after turn 1" in detail and "6900" in detail  # what was stored
    assert record.status == "failed" and record.failureMode == "not_exercised"
    assert "memory_preserved not exercised" in (record.reason or "")
    # the same trial with the right text: exercised, and it passes
    record = trial("v2", [{"name": "memory_preserved", "afterTurn": 1, "contains": ["6900"]}])
    assert result(record, "memory_preserved")[0] == "passed" and record.status == "passed"


def test_memory_preserved_after_a_turn_the_trial_never_had_is_not_exercised() -> None:
    record = trial("A", [{"name": "memory_preserved", "afterTurn": 2, "contains": ["6900"]}], turns=SCENARIO[:1])
    assert result(record, "memory_preserved")[:2] == ("not_exercised", "the trial ended before turn 2")


def test_memory_preserved_without_windows_is_not_applicable() -> None:
    record = trial("prefix", [{"name": "memory_preserved", "afterTurn": 1, "contains": ["6900"]}])
    assert result(record, "memory_preserved")[0] == "not_applicable" and record.status == "passed"


@pytest.mark.parametrize("name, why", [
    ("fold_readback", "the trial made no fold"),
    ("compression_readback", "no maintenance compressed anything in this trial"),
    ("window_mismatch_recovered", "no context_window_mismatch occurred"),
])
def test_a_precondition_that_never_occurred_is_not_exercised(name: str, why: str) -> None:
    """A model that never calls a tool makes no fold, and the runs stay below any maintenance threshold."""
    record = trial("A", [{"name": name}], chat=Plain())
    outcome, detail, required = result(record, name)
    assert (outcome, required) == ("not_exercised", True) and detail.startswith(why)
    assert record.status == "failed" and record.failureMode == "not_exercised"
    assert diagnose(record, []).detail.startswith(f"required check(s) not exercised: {name}: {why}")


@pytest.mark.parametrize("name", ["fold_readback", "compression_readback", "window_mismatch_recovered"])
def test_a_check_that_is_not_required_is_reported_but_does_not_decide(name: str) -> None:
    record = trial("A", [{"name": name, "required": False}], chat=Plain())
    assert result(record, name)[0::2] == ("not_exercised", False)
    assert record.status == "passed" and record.failureMode is None


@pytest.mark.parametrize("variant, name", [
    ("prefix", "fold_readback"), ("prefix", "compression_readback"), ("v1", "window_mismatch_recovered"),
    ("v1", "state_in_every_request"), ("prefix", "state_in_every_request"),
])
def test_a_missing_capability_is_not_applicable_and_does_not_decide(variant: str, name: str) -> None:
    record = trial(variant, [{"name": name}], turns=[SIMPLE])
    assert result(record, name)[0] == "not_applicable" and record.status == "passed"


def test_state_in_every_request_without_any_request_is_not_exercised() -> None:
    engine = make_engine("B")
    view = TrialView(protocol=engine.protocol, store=engine.store, session_id=engine.create_session(), runs=[],
                     snapshots=[])
    check = stage([{"name": "state_in_every_request"}]).trialChecks[0]
    got = trial_check(check, view)
    assert (got.result, got.required) == ("not_exercised", True)
    assert got.detail.startswith("no agent request was made")


def test_a_failed_check_decides_before_a_missing_one() -> None:
    """Contrary evidence outranks missing evidence in the failure mode."""
    record = trial("v1", [{"name": "memory_preserved", "afterTurn": 1, "contains": ["7650"]},
                          {"name": "memory_preserved", "afterTurn": 1, "contains": ["6900"], "forbidden": ["报价"]}],
                   turns=SCENARIO[:1])
    assert [c.result for c in record.checks if c.name == "memory_preserved"] == ["not_exercised", "failed"]
    assert record.status == "failed" and record.failureMode == "tool_misuse"


def test_a_compression_that_covered_no_fold_leaves_compression_readback_not_exercised() -> None:
    engine = make_engine("v2")
    sid = engine.create_session()
    run = RunResult(session_id=sid, run_id="r1", input="q", final_answer="a", status="completed", steps=3,
                    maintenance=[MaintenanceRecord(step=3, window_id="alpha", status="compressed", covered_through=5)])
    view = TrialView(protocol=engine.protocol, store=engine.store, session_id=sid, runs=[run], snapshots=[])
    got = trial_check(stage([{"name": "compression_readback"}]).trialChecks[0], view)
    assert (got.result, got.detail) == ("not_exercised", "1 compression(s) ran but none covered a fold")
