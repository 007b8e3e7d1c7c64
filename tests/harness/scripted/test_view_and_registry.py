"""Reading a request (X-60), the task parser (X-61) and the registry of scripted models."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from harness.scripted import SCRIPTED_MODELS, ScriptedReply, get_scripted
from harness.scripted._tasks import BudgetCheck, Lookup, Quote, Remaining, Schedule, Unknown, find_total, parse_task
from harness.scripted._view import View
from tests.harness.scripted._fake_host import LOOKUP, SIMPLE, T1, T2, T3

GOLDEN = Path(__file__).resolve().parents[2] / "protocols" / "golden"


def golden(name: str) -> View:
    """A request rendered by the real mapping: alpha resumed from beta (T3), per protocol."""
    data = json.loads((GOLDEN / f"resume_alpha.{name}.json").read_text(encoding="utf-8"))
    return View(data["messages"], data["tools"])


@pytest.mark.parametrize("name", ["unified@3-A", "unified@3-B", "unified@3-C", "unified@2", "unified@1"])
def test_p80_request_and_position_are_found_under_every_placement(name: str) -> None:
    view = golden(name)
    assert view.windows and view.current_window == "alpha"
    assert view.text_at(view.request_index) == T3
    assert "6900" in view.working_memory
    assert view.calls_after(view.request_index) == []  # the resume call belongs to beta (P-44)
    assert view.calls_before(view.request_index)[-1].name == "context_window_open"


def test_p80_under_c_the_last_user_message_is_the_state_block() -> None:
    view = golden("unified@3-C")
    assert view.last_user_index == len(view.messages) - 1 and view.last_user_index != view.request_index
    assert view.state is not None and view.state["enteredFrom"] == "beta"


def test_p71_v1_has_no_state_and_is_located_by_the_header() -> None:
    view = golden("unified@1")
    assert view.state is None and view.active_window["id"] == "alpha"
    assert not view.wants("context_window_open", "expectedWindowId")
    assert golden("unified@2").wants("context_window_open", "expectedWindowId")


def test_p90_prefix_offers_no_windows() -> None:
    view = golden("prefix@2")
    assert not view.windows and view.current_window == "main"


@pytest.mark.parametrize(("text", "task"), [
    (SIMPLE, Remaining(Decimal(12000), Decimal(4350))),
    (LOOKUP, Lookup("P-17")),
    (T1, Quote(Decimal(2000), 3, Decimal(300))),
    (T2, Schedule("2026-10-16", 2)),
    (T3, BudgetCheck(Decimal(9000))),
    ("项目预算 12,000 元，目前已支出 4,350.5 元。还剩多少？", Remaining(Decimal(12000), Decimal("4350.5"))),
    ("需要 4 个工作日，最早 2027年1月2日 开始。", Schedule("2027-01-02", 4)),
    ("你好", Unknown("你好")),
])
def test_x61_tasks_are_read_from_the_users_words(text: str, task: object) -> None:
    assert parse_task(text) == task


def test_x61_the_quote_total_is_read_from_memory_or_results() -> None:
    assert find_total("报价：设备 6000 + 安装 900 = 总价 6900 元") == Decimal(6900)
    assert find_total('{"success": true, "total": 10500}') == Decimal(10500)
    assert find_total("安装排期：2026-10-16 至 2026-10-19") is None


def test_registry_names_and_the_scripted_prefix() -> None:
    assert set(SCRIPTED_MODELS) == {"oracle", "prefill-continuer", "last-user-follower", "stale-intent",
                                    "repeater", "chaos"}
    for name in SCRIPTED_MODELS:
        assert get_scripted(name).name == name
        assert type(get_scripted(f"scripted/{name}")) is type(get_scripted(name))


def test_registry_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(KeyError) as info:
        get_scripted("scripted/genius")
    assert "genius" in str(info.value) and "oracle" in str(info.value) and "chaos" in str(info.value)


def test_x60_reply_is_a_frozen_value_with_deterministic_ids() -> None:
    view = golden("unified@3-A")
    model = get_scripted("oracle")
    reply = model.reply(view.messages, view.tools)
    assert isinstance(reply, ScriptedReply) and reply == model.reply(view.messages, view.tools)
    # alpha still shows its answered quote exchange: the oracle lists the history to fold it (issue 11)
    assert [c.name for c in reply.tool_calls] == ["context_history_list"]
    with pytest.raises(ValueError):
        reply.content = "changed"  # type: ignore[misc]
    stale = get_scripted("stale-intent")
    first = stale.reply(view.messages, view.tools)
    assert first == stale.reply(view.messages, view.tools)
    (call,) = first.tool_calls
    assert json.loads(call.arguments)["expectedWindowId"] == "beta"  # the stale "open beta" intent
    other = stale.reply([*view.messages[:-1], {"role": "user", "content": T3 + " "}, view.messages[-1]],
                        view.tools)
    assert other.tool_calls[0].id != call.id  # ids follow the request, not a counter
