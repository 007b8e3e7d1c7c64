"""``scripted/oracle`` solves the fixed scenario under every protocol and on a variant plan (X-61)."""

from __future__ import annotations

import json

import pytest

from protocols import FrozenView, MaintainerBinding, ToolCall, new_run_id
from tests.harness.scripted._fake_host import (
    GROUPS,
    LOOKUP,
    SIMPLE,
    T1,
    T2,
    T3,
    TIDY,
    WINDOWED,
    FakeHost,
    scripted_maintainer,
)


def names(turn) -> list[str]:
    return [name for name, _, _ in turn.calls]


@pytest.mark.parametrize("group", list(GROUPS))
def test_x61_simple_stage_answers_7650_without_tools(group: str) -> None:
    turn = FakeHost(group, "oracle").send(SIMPLE)
    assert turn.status == "completed" and "7650" in (turn.answer or "")
    assert turn.calls == []


@pytest.mark.parametrize("group", list(GROUPS))
def test_x61_tool_continuation_calls_budget_lookup_then_answers_2100(group: str) -> None:
    turn = FakeHost(group, "oracle").send(LOOKUP)
    assert names(turn) == ["budget_lookup"]
    assert "2100" in (turn.answer or "")


@pytest.mark.parametrize("group", WINDOWED)
def test_x61_conversation_with_windows_keeps_quote_in_alpha_and_dates_in_beta(group: str) -> None:
    host = FakeHost(group, "oracle")
    t1 = host.send(T1)
    assert names(t1) == ["context_window_open", "quote_calculate", "context_window_memory_set"]
    assert "6900" in (t1.answer or "") and host.active() == "alpha"
    t2 = host.send(T2)  # alpha holds the answered quote: tidy it (issue 11), then open beta
    assert names(t2) == [*TIDY, "context_window_open", "schedule_plan", "context_window_memory_set"]
    assert "2026-10-16" in (t2.answer or "") and "2026-10-19" in (t2.answer or "")
    t3 = host.send(T3)
    assert names(t3) == [*TIDY, "context_window_open"]  # beta tidied, then resume only, no write (P-73 example)
    assert "6900" in (t3.answer or "") and "在 9000 元预算内" in (t3.answer or "")
    assert all(result["success"] for turn in (t1, t2, t3) for _, _, result in turn.calls)
    alpha, beta = host.memory("alpha") or "", host.memory("beta") or ""
    assert "6900" in alpha and "2026-10-16" not in alpha and "10-19" not in alpha
    assert "2026-10-16" in beta and "2026-10-19" in beta


@pytest.mark.parametrize("group", WINDOWED)
def test_x61_tidy_folds_the_answered_exchange_and_compresses_before_leaving(group: str) -> None:
    """Issue 11: the fold range and the compression come from this request's listing and results."""
    host = FakeHost(group, "oracle")
    host.send(T1)
    t2 = host.send(T2)
    listing = t2.calls[0][2]["items"]
    fold_args, fold = json.loads(t2.calls[1][1]), t2.calls[1][2]
    quote = next(i for i in listing if "quote_calculate" in i["preview"])
    assert (fold_args["fromIndex"], fold_args["throughIndex"]) == (quote["firstIndex"], quote["lastIndex"])
    assert quote["foldable"] and fold["success"] and "total=6900" in fold_args["summary"]
    compress = t2.calls[2][2]
    assert compress["status"] == "compressed" and compress["compressedFolds"] == [fold["foldId"]]
    assert ("expectedWindowId" in json.loads(t2.calls[2][1])) == (group != "v1")
    fold_text = host.protocol.dispatch(host.store, host.sid, ToolCall(
        id="read", name="context_fold_read", arguments=json.dumps({"purpose": "p", "foldId": fold["foldId"]})),
        FrozenView(revision=host.store.revision(host.sid), upper_bound=host.store.max_index(host.sid),
                   run_id=new_run_id()))
    assert '"name":"quote_calculate"' in fold_text["text"]  # read-back is the raw exchange


@pytest.mark.parametrize("keep", [0, 1, 4])
def test_x61_tidy_happens_once_even_when_the_compression_covers_its_own_listing(keep: int) -> None:
    """A compression that covers this turn's listing and fold hides them from the view; the oracle reads
    its own successful compression and stops there instead of listing again."""
    host = FakeHost("v2", "oracle", binding=MaintainerBinding(scripted_maintainer, keep_recent_groups=keep))
    host.send(T1)
    t2, t3 = host.send(T2), host.send(T3)
    assert names(t2)[:4] == [*TIDY, "context_window_open"] and names(t3) == [*TIDY, "context_window_open"]
    assert all(result["success"] for _, _, result in (*t2.calls, *t3.calls))
    assert "6900" in (t3.answer or "")


@pytest.mark.parametrize("group", ["A", "B", "C", "v2"])
def test_p73_resume_uses_the_source_argument_shape(group: str) -> None:
    host = FakeHost(group, "oracle")
    host.send(T1)
    host.send(T2)
    _, arguments, _ = next(c for c in host.send(T3).calls if c[0] == "context_window_open")
    args = json.loads(arguments)
    assert args == {"purpose": "复核报价", "expectedWindowId": "beta", "windowId": "alpha", "resume": True,
                    "input": "beta排期已完成；只核对alpha检查点，不覆写报价，随后汇报。"}


def test_v1_open_carries_no_expected_window_id() -> None:
    """unified@1's schema has no expectedWindowId and forbids unknown keys: the oracle reads the schema."""
    host = FakeHost("v1", "oracle")
    turn = host.send(T1)
    assert '"expectedWindowId"' not in turn.calls[0][1]
    assert turn.calls[0][2]["success"] is True


def test_x61_prefix_baseline_solves_the_conversation_from_history() -> None:
    host = FakeHost("prefix", "oracle")
    assert names(host.send(T1)) == ["quote_calculate"]
    assert "2026-10-19" in (host.send(T2).answer or "")
    t3 = host.send(T3)
    assert t3.calls == [] and "6900" in (t3.answer or "") and "预算内" in (t3.answer or "")


@pytest.mark.parametrize("group", ["C", "v1", "prefix"])
def test_x61_variant_plan_with_other_numbers_ids_and_dates(group: str) -> None:
    """Nothing of the plan is hard-coded: other amounts, project id and a Saturday start date."""
    projects = {"Q-5": {"budget": 50000, "spent": 12345}}
    assert "7777" in (FakeHost(group, "oracle", projects).send(
        "项目预算 20000 元，目前已支出 12223 元。还剩多少预算？").answer or "")
    assert "37655" in (FakeHost(group, "oracle", projects).send(
        "请查询项目 Q-5 的预算和已支出，然后告诉我剩余预算。").answer or "")
    host = FakeHost(group, "oracle", projects)
    t1 = host.send("客户 BETA 需要 5 台 Z9 设备，单价 1800 元，每台安装费 300 元。请完成报价并告诉我总价。")
    assert "10500" in (t1.answer or "")
    t2 = host.send("接下来安排安装：需要 3 个工作日，最早 2026-11-07 开始。请排期并告诉我起止日期。")
    assert "2026-11-09" in (t2.answer or "") and "2026-11-11" in (t2.answer or "")  # Saturday start → Monday
    t3 = host.send("客户把预算调整为 10000 元。请回到报价，核对报价是否在预算内，不要覆写已有报价，核对后向我汇报。")
    assert "10500" in (t3.answer or "") and "超出" in (t3.answer or "") and "预算内" not in (t3.answer or "")


def test_unknown_project_is_reported_not_invented() -> None:
    turn = FakeHost("A", "oracle").send("请查询项目 P-404 的预算和已支出，然后告诉我剩余预算。")
    assert turn.calls[0][2]["error"]["code"] == "project_not_found"
    assert "P-404" in (turn.answer or "") and "2100" not in (turn.answer or "")


def test_x60_same_request_gives_the_same_reply_and_ids() -> None:
    host = FakeHost("A", "oracle")
    host.send(T1)
    request = host.send(T2).requests[0]
    model = host.model
    first = model.reply(request["messages"], request["tools"])
    assert first == model.reply(request["messages"], request["tools"])
    assert first.tool_calls[0].id.startswith("call_") and len(first.tool_calls[0].id) == 21


def test_call_ids_are_unique_within_a_session() -> None:
    """The dispatcher replays receipts by call id (P-42): ids must not collide across steps and windows."""
    host = FakeHost("A", "oracle")
    for text in (T1, T2, T3):
        host.send(text)
    ids = [c.id for m in host.store.all_messages(host.sid) for c in (m.tool_calls or ())]
    assert len(ids) == 7 + 2 * len(TIDY) and len(set(ids)) == len(ids)
