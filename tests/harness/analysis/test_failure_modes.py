"""The failure-mode classifier on recorded answers of real shape.

``data/real_answers_qwen05b.json`` holds trial records and transcripts of a real small model
(Qwen2.5-Coder-0.5B under llama.cpp) on the fixed plan: the state block echoed (llama.cpp returns
a trailing assistant message as prefill plus continuation: ``prefill_returned`` when the continuation
is empty), tool descriptions echoed as
``[name] description``, tool calls written as ``[name] {json}``, answers cut at the output cap.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import (
    FAILURE_MODES,
    CallEvidence,
    TrialEvidence,
    TurnEvidence,
    classify_failure,
    echo_source,
    mode_counts,
    pass_shape,
)
from harness.judging._diagnose import diagnose
from harness.results import TrialRecord

DATA = json.loads((Path(__file__).parent / "data" / "real_answers_qwen05b.json").read_text(encoding="utf-8"))
CASES = {(c["run"], c["record"]["id"]): c for c in DATA["cases"]}
STATE = ('[context_state] Current execution position, derived by the host from the frozen session state for this '
         'request.\n{"windowId": "main", "status": "active", "revision": 0, "enteredFrom": null, '
         '"enteredAtUpperBound": 0, "handoffInput": null, "coveredThrough": 0, "toolResultsSinceEntry": 0, '
         '"recentTools": []}')
HEADER = ('[context_header] Derived by the host from the session state for this request; not a message of the user '
          'and not window history.\n{"agent_inputs": {"currency": "CNY", "customer": "ACME"}, "task_memory": null, '
          '"active_window": {"id": "main", "goal": null, "status": "active", "workingMemory": null}}')
TOOLS = (("budget_lookup", "Look up a project's budget, amount spent and remaining budget."),
         ("quote_calculate", "Compute a quote: equipment = unitPrice × quantity, installation = installFeePerUnit × "
                             "quantity, and the total."))
DERIVED = (("context_header", HEADER), ("context_state", STATE))
MISSING_7650 = (("answer_contains", "missing (all) number 7650"),)


def _real(run: str, trial: str) -> tuple[TrialRecord, list[dict[str, Any]]]:
    case = CASES[(run, trial)]
    return TrialRecord.model_validate(case["record"]), case["snapshots"]


@pytest.mark.parametrize(("run", "trial", "mode", "echoed"), [
    ("fixed plan", "A/simple/1", "prefill_returned", None),  # trailing assistant state returned as prefill, + ""
    ("fixed plan", "v2/simple/1", "prefill_returned", None),
    ("fixed plan", "C/simple/1", "state_echo", "context_state"),  # the user-role state copied
    ("fixed plan", "B/simple/1", "state_echo", "tool:quote_calculate"),  # "[quote_calculate] Compute a quote: …"
    ("fixed plan", "v1/simple/1", "state_echo", "tool:context_window_complete"),
    ("fixed plan, failFast off, --stage tool_continuation", "B/tool_continuation/1", "state_echo",
     "tool:budget_lookup"),
    ("fixed plan, failFast off, --stage tool_continuation", "v1/tool_continuation/1", "state_echo",
     "context_header"),  # "[quote_calculate] Derived by the host from the session state …": the header's lead
    ("fixed plan", "prefix/conversation/1", "tool_call_as_text", None),  # '[quote_calculate] {"unitPrice": 2000, …}'
    ("fixed plan, maxOutputTokensPerCall 24", "v1/simple/1", "state_echo", "tool:context_window_complete"),
    ("fixed plan, maxOutputTokensPerCall 10, prefix in simple", "prefix/simple/1", "state_echo", "context_header"),
])
def test_recorded_real_answers_get_their_mode(run: str, trial: str, mode: str, echoed: str | None) -> None:
    record, snapshots = _real(run, trial)
    assert record.status == "failed"
    diagnosis = diagnose(record, snapshots)
    assert (diagnosis.mode, diagnosis.echoed) == (mode, echoed)
    assert diagnosis.turn == 1 and diagnosis.detail.startswith("turn 1: ")


@pytest.mark.parametrize("trial", ["A/simple/1", "v2/simple/1"])
def test_a_returned_prefill_is_not_the_models_answer(trial: str) -> None:
    """llama.cpp returns the trailing assistant context_state as the answer's start, and the model added
    one empty token: the model produced nothing. The recorded answer stays exactly as returned."""
    record, snapshots = _real("fixed plan", trial)
    trailing = snapshots[-1]["request"]["messages"][-1]
    assert trailing["role"] == "assistant" and record.runs[0].final_answer == trailing["content"]
    diagnosis = diagnose(record, snapshots)
    assert diagnosis.detail.startswith("turn 1: the model produced nothing after the prefill (1 output token(s))")
    assert "the context_state block" in diagnosis.detail
    assert record.runs[0].final_answer == trailing["content"]  # classification only; the record is untouched


def test_what_the_model_adds_after_a_returned_prefill_is_classified_on_its_own() -> None:
    prefill = ("context_state", STATE)
    wrong = TurnEvidence(turn=1, answer=STATE + "\n剩余预算为 7560 元。", status="completed",
                         failed_checks=MISSING_7650, derived=DERIVED, tools=TOOLS, prefill=prefill, output_tokens=9)
    diagnosis = classify_failure(TrialEvidence(turns=(wrong,)))
    assert diagnosis.mode == "wrong_answer" and "7560" in diagnosis.detail and "context_state" not in diagnosis.detail
    right = TurnEvidence(turn=1, answer=STATE + " 剩余 7650 元。", status="completed", derived=DERIVED, tools=TOOLS,
                         prefill=prefill)
    assert pass_shape(TrialEvidence(turns=(right,))) is None  # the returned prefill is no echo of the model's
    hosted = TurnEvidence(turn=1, answer="剩余预算 7560 元", status="completed", failed_checks=MISSING_7650,
                          derived=DERIVED, tools=TOOLS, prefill=prefill)  # a provider returning the continuation only
    assert classify_failure(TrialEvidence(turns=(hosted,))).mode == "wrong_answer"


def test_a_state_the_model_copied_in_a_new_turn_is_an_echo_not_a_returned_prefill() -> None:
    """With --no-prefill-assistant llama.cpp opens a new turn after the state, and Qwen 0.5B wrote the state
    block out again: the same text as a returned prefill, but 118 generated tokens where a prefill took 1."""
    prefill = ("context_state", STATE)
    copied = _turn(STATE, prefill=prefill, output_tokens=118)
    assert classify_failure(TrialEvidence(turns=(copied,))).mode == "state_echo"
    returned = _turn(STATE, prefill=prefill, output_tokens=1)
    assert classify_failure(TrialEvidence(turns=(returned,))).mode == "prefill_returned"


def test_a_length_cut_is_named_beside_the_echo_it_cut() -> None:
    record, snapshots = _real("fixed plan, maxOutputTokensPerCall 10, prefix in simple", "prefix/simple/1")
    assert snapshots[-1]["response"]["finishReason"] == "length"
    assert "cut at the output cap" in diagnose(record, snapshots).detail


def test_the_diagnosis_is_a_function_of_the_record_and_transcript_only() -> None:
    """Rescoring a finished run reads trials.jsonl and the transcripts: same input, same mode."""
    record, snapshots = _real("fixed plan", "A/simple/1")
    again = TrialRecord.model_validate_json(record.model_dump_json())
    assert diagnose(again, json.loads(json.dumps(snapshots))) == diagnose(record, snapshots)


def _turn(answer: str | None, **kw: Any) -> TurnEvidence:
    kw.setdefault("failed_checks", MISSING_7650)
    return TurnEvidence(turn=kw.pop("turn", 1), answer=answer, status=kw.pop("status", "completed"),
                        derived=kw.pop("derived", DERIVED), tools=kw.pop("tools", TOOLS), **kw)


def _mode(*turns: TurnEvidence, **kw: Any) -> str:
    return classify_failure(TrialEvidence(turns=turns, **kw)).mode


def test_truncated_when_an_on_topic_answer_stops_at_the_output_cap() -> None:
    cut = "项目预算 12000 元，已支出 4350 元，剩余预算为 12000 − 4350 ="
    assert _mode(_turn(cut, finish_reason="length")) == "truncated"
    assert _mode(_turn("", finish_reason="length")) == "truncated"


def test_tool_calls_written_as_text_in_the_usual_real_shapes() -> None:
    for text in ('[budget_lookup] {"projectId": "P-17"}',
                 '<tool_call>\n{"name": "budget_lookup", "arguments": {"projectId": "P-17"}}\n</tool_call>',
                 '```json\n{"name": "quote_calculate", "arguments": {"unitPrice": 2000, "quantity": 3}}\n```'):
        assert _mode(_turn(text)) == "tool_call_as_text", text


def test_a_continued_state_json_is_an_echo_even_without_its_tag() -> None:
    continued = ('{"windowId": "main", "status": "active", "revision": 0, "enteredFrom": null}\n'
                 "当前执行位置：窗口 main，状态 active。继续在该窗口工作。")
    assert echo_source(continued, DERIVED, TOOLS) == "context_state"
    assert echo_source('"toolResultsSinceEntry": 0, "recentTools": []}', DERIVED, TOOLS) == "context_state"


@pytest.mark.parametrize("answer", [
    "剩余预算 7650 元（12000 − 4350）。",
    "项目 P-17：预算 9000 元，已支出 6900 元，剩余预算 2100 元。",
    "The remaining budget is 7,650 CNY (12,000 − 4,350).",
    "报价总价 6900 元，在 9000 元预算内（剩余 2100 元），已有报价未覆写。",
])
def test_ordinary_answers_are_no_echo(answer: str) -> None:
    assert echo_source(answer, DERIVED, TOOLS) is None


def test_wrong_answer_when_an_answer_is_complete_and_on_topic_but_wrong() -> None:
    assert _mode(_turn("剩余预算 7560 元。", finish_reason="stop")) == "wrong_answer"


def test_no_answer_step_limit_and_tool_error_streak() -> None:
    assert _mode(_turn("", finish_reason="stop")) == "no_answer"
    assert _mode(_turn(None, status="step_limit", error="no final answer within 12 steps")) == "step_limit"
    streak = _turn(None, status="error", error_class="model", error="6 consecutive failing tool calls (X-32)",
                   calls=(CallEvidence("budget_lookup", False, "invalid_arguments"),) * 6)
    diagnosis = classify_failure(TrialEvidence(turns=(streak,)))
    assert diagnosis.mode == "tool_misuse" and "invalid_arguments" in diagnosis.detail


def test_tool_misuse_when_the_stage_tool_was_not_called_but_another_was() -> None:
    turn = _turn("剩余预算 2100 元。", failed_checks=(("tool_called", "budget_lookup called 0 time(s), expected 1…∞"),),
                 calls=(CallEvidence("quote_calculate", True),))
    diagnosis = classify_failure(TrialEvidence(turns=(turn,)))
    assert diagnosis.mode == "tool_misuse" and "called quote_calculate" in diagnosis.detail


def test_the_first_failing_turn_decides() -> None:
    ok = _turn("报价完成：总价 6900 元。", failed_checks=())
    cut = _turn("安装排期：2026-10-16 至", turn=2, finish_reason="length",
                failed_checks=(("answer_contains", "missing (all) date 10-19"),))
    echo = _turn(STATE, turn=3)
    diagnosis = classify_failure(TrialEvidence(turns=(ok, cut, echo)))
    assert (diagnosis.mode, diagnosis.turn) == ("truncated", 2)


def test_trial_check_failures_wrong_window_write_host_checks_and_not_exercised() -> None:
    ok = _turn("报价完成：总价 6900 元。", failed_checks=())
    memory = (("memory_preserved", "after turn 3 window/alpha holds forbidden ['2026-10-16']"),)
    assert _mode(ok, failed_trial_checks=memory) == "tool_misuse"
    assert _mode(ok, failed_trial_checks=(("fold_readback", "f1: read back 10 characters that differ"),)) == "other"
    assert _mode(ok, not_exercised=(("fold_readback", "the trial made no fold"),)) == "not_exercised"


def test_mode_counts_follow_the_documented_order() -> None:
    assert mode_counts(["wrong_answer", "state_echo", None, "state_echo"]) == {"state_echo": 2, "wrong_answer": 1}
    assert set(FAILURE_MODES) >= {"state_echo", "tool_call_as_text", "truncated", "wrong_answer", "tool_misuse",
                                  "no_answer", "step_limit", "other"}


def _passed_turn(answer: str) -> TrialEvidence:
    return TrialEvidence(turns=(TurnEvidence(turn=1, answer=answer, status="completed", derived=DERIVED,
                                             tools=TOOLS),))


@pytest.mark.parametrize(("answer", "mode"), [
    # passes recorded on the local probe (Qwen2.5-Coder-0.5B, llama.cpp): the number is there, the answer is not
    ('[budget_lookup] The remaining budget is 12000 - 4350 = 7650', "state_echo"),  # a tool's tag line
    ('[context_header] Derived by the host … {"remaining": 7650}', "state_echo"),  # a derived tag line
    ('{"windowId": "main", "revision": 0, "result": "12000 - 4350 = 7650"}', "state_echo"),  # state JSON keys
    ('{"name": "budget_lookup", "arguments": {"remaining": 7650}}', "tool_call_as_text"),
])
def test_a_pass_with_a_failures_shape_is_flagged(answer: str, mode: str) -> None:
    shape = pass_shape(_passed_turn(answer))
    assert shape is not None and shape.mode == mode


@pytest.mark.parametrize("answer", [
    "还剩 7650 元预算（12000 − 4350）。",
    # repeating what the header shows (the model's own window memory) is answering, not echoing
    'Not a message of the user and not window history: ACME pays in CNY; 7650 remain.',
])
def test_a_plain_pass_is_not_flagged(answer: str) -> None:
    assert pass_shape(_passed_turn(answer)) is None
