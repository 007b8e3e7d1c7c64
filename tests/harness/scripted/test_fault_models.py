"""Fault models reproduce their failure modes deterministically, from the request alone (X-62)."""

from __future__ import annotations

import json
import re

import pytest

from tests.harness.scripted._fake_host import GROUPS, LOOKUP, SIMPLE, T1, T2, T3, TIDY, WINDOWED, FakeHost, Turn


def names(turn: Turn) -> list[str]:
    return [name for name, _, _ in turn.calls]


def simple_failures(model: str) -> set[str]:
    """Groups whose simple-stage answer misses 7650 (the anomaly stage of X-40)."""
    return {g for g in GROUPS if "7650" not in (FakeHost(g, model).send(SIMPLE).answer or "")}


# prefill-continuer -------------------------------------------------------------------------------
def test_x62_prefill_continuer_fails_exactly_where_the_state_trails_as_assistant() -> None:
    """F(A), F(v2), not F(B), not F(C), not F(v1): the rule 'trailing assistant implicated' (X-40)."""
    assert simple_failures("prefill-continuer") == {"A", "v2"}


@pytest.mark.parametrize("group", ["A", "v2"])
def test_x62_prefill_continuer_continues_the_state_instead_of_answering(group: str) -> None:
    for text, number in ((SIMPLE, "7650"), (LOOKUP, "2100"), (T1, "6900")):
        turn = FakeHost(group, "prefill-continuer").send(text)
        assert turn.status == "completed" and turn.calls == []
        assert number not in (turn.answer or "") and "main" in (turn.answer or "")


@pytest.mark.parametrize("group", ["B", "C", "v1", "prefix"])
def test_x62_prefill_continuer_is_the_oracle_when_nothing_trails(group: str) -> None:
    assert "2100" in (FakeHost(group, "prefill-continuer").send(LOOKUP).answer or "")


# last-user-follower ------------------------------------------------------------------------------
def test_x62_last_user_follower_fails_only_under_trailing_user() -> None:
    """not F(A) but F(C): 'that placement is worse than the placement control' (X-40)."""
    assert simple_failures("last-user-follower") == {"C"}


def test_x62_last_user_follower_answers_about_the_state_under_c() -> None:
    turn = FakeHost("C", "last-user-follower").send(LOOKUP)
    assert turn.calls == [] and "2100" not in (turn.answer or "") and "窗口 main" in (turn.answer or "")


# stale-intent ------------------------------------------------------------------------------------
def run_conversation(group: str, model: str) -> tuple[FakeHost, list[Turn]]:
    host = FakeHost(group, model)
    return host, [host.send(text) for text in (T1, T2, T3)]


@pytest.mark.parametrize("group", ["A", "B", "C", "v2"])
def test_x62_p74_stale_intent_write_is_rejected_and_alpha_keeps_its_quote(group: str) -> None:
    host, (_, _, t3) = run_conversation(group, "stale-intent")
    assert names(t3) == [*TIDY, "context_window_open", "context_window_memory_set"]  # beta tidied first
    stale_args, result = json.loads(t3.calls[-1][1]), t3.calls[-1][2]
    assert stale_args["expectedWindowId"] == "beta" and "2026-10-16" in stale_args["memory"]
    assert result["error"]["code"] == "context_window_mismatch" and result["error"]["currentWindowId"] == "alpha"
    assert "6900" in (host.memory("alpha") or "") and "2026-10-16" not in (host.memory("alpha") or "")
    assert "6900" in (t3.answer or "") and "预算内" in (t3.answer or "")


def test_x62_stale_intent_corrupts_alpha_under_v1() -> None:
    """v1 has no expectedWindowId: nothing stops the write, alpha's quote memory is replaced by dates."""
    host, (_, _, t3) = run_conversation("v1", "stale-intent")
    assert names(t3) == [*TIDY, "context_window_open", "context_window_memory_set"]
    assert "expectedWindowId" not in json.loads(t3.calls[-1][1]) and t3.calls[-1][2]["success"] is True
    alpha = host.memory("alpha") or ""
    assert "2026-10-16" in alpha and "2026-10-19" in alpha and "6900" not in alpha
    assert "6900" in (t3.answer or "")  # the answer alone does not reveal the corruption


@pytest.mark.parametrize("group", ["A", "v1", "prefix"])
def test_x62_stale_intent_is_the_oracle_before_any_resume(group: str) -> None:
    _, (t1, t2, _) = run_conversation(group, "stale-intent")
    oracle = run_conversation(group, "oracle")[1]
    assert (t1.answer, t2.answer) == (oracle[0].answer, oracle[1].answer)
    assert names(t1) == names(oracle[0]) and names(t2) == names(oracle[1])


# repeater ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", list(GROUPS))
def test_x62_x50_repeater_repeats_the_read_once_then_answers(group: str) -> None:
    turn = FakeHost(group, "repeater").send(LOOKUP)
    assert names(turn) == ["budget_lookup", "budget_lookup"]
    (_, first, r1), (_, second, r2) = turn.calls
    assert first == second and r1 == r2  # same arguments, same result: it learned nothing new
    assert "2100" in (turn.answer or "")


@pytest.mark.parametrize("group", WINDOWED)
def test_x62_repeater_repeats_the_quote_in_t1_without_breaking_the_scenario(group: str) -> None:
    host, (t1, t2, t3) = run_conversation(group, "repeater")
    assert names(t1)[-2:] == ["context_window_memory_set", "quote_calculate"]
    assert names(t2)[-1] == "schedule_plan" and names(t3) == [*TIDY, "context_window_open"]
    assert "6900" in (t3.answer or "") and "6900" in (host.memory("alpha") or "")


# chaos -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", WINDOWED)
def test_x62_e5_e6_chaos_makes_each_mistake_once_then_finishes(group: str) -> None:
    host, (t1, t2, t3) = run_conversation(group, "chaos")
    codes = t1.codes()
    assert codes[:5] == ["invalid_arguments", "unknown_tool", None, "tool_call_limit_exceeded",
                         "invalid_arguments"]
    assert names(t1)[4] == "context_fold_create"
    summary = json.loads(t1.calls[4][1])["summary"]
    assert len(summary.encode("utf-16-le")) // 2 > 2000
    assert names(t1)[5:] == ["context_window_open", "quote_calculate", "context_window_memory_set"]
    assert "6900" in (t1.answer or "") and "2026-10-19" in (t2.answer or "") and "预算内" in (t3.answer or "")
    assert names(t2)[: len(TIDY)] == names(t3)[: len(TIDY)] == TIDY  # the oracle's tidy after a finished stage
    assert t2.codes() == [None] * 6 and t3.codes() == [None] * 4  # only the first turn misbehaves
    assert "6900" in (host.memory("alpha") or "")


def test_x62_chaos_malformed_arguments_are_really_invalid_json() -> None:
    turn = FakeHost("A", "chaos").send(LOOKUP)
    with pytest.raises(json.JSONDecodeError):
        json.loads(turn.calls[0][1])
    assert "2100" in (turn.answer or "")


@pytest.mark.parametrize("text,number", [(SIMPLE, "7650"), (LOOKUP, "2100")])
def test_x62_chaos_never_loops_without_context_tools(text: str, number: str) -> None:
    turn = FakeHost("prefix", "chaos").send(text)
    assert turn.status == "completed" and number in (turn.answer or "")
    assert {"invalid_arguments", "unknown_tool"} <= set(turn.codes())
    assert len(turn.calls) <= 5


@pytest.mark.parametrize("model", ["oracle", "prefill-continuer", "last-user-follower", "stale-intent",
                                   "repeater", "chaos"])
@pytest.mark.parametrize("group", list(GROUPS))
def test_x62_every_model_ends_every_turn_within_the_step_budget(model: str, group: str) -> None:
    """maxSteps 12 and maxConsecutiveToolErrors 6 of the fixed plan are never reached by design."""
    _, turns = run_conversation(group, model)
    for turn in turns:
        assert turn.status == "completed" and len(turn.requests) <= 12
        streak = max((len(m) for m in re.findall(r"E+", "".join("E" if c else "." for c in turn.codes()))),
                     default=0)
        assert streak < 6
