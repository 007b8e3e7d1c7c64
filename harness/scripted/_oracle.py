"""``scripted/oracle``: solves the fixed scenario under every protocol, like a careful model (X-61).

Each step is decided from the request alone: the task from the current user request, where the
model stands from the state block (v2/v3) or the header (v1), and the progress of this turn from
the tool calls and results after the request. Where windows exist, the quote lives in window
``alpha`` and the schedule in ``beta``; the budget check resumes ``alpha`` and never writes.
A request that arrives in a window holding a finished stage first tidies it (``_tidy``): the
answered tool exchange is folded and, where offered, the window compressed.
Answers are given in the request's language (``_phrases``). A request none of the task kinds fits
raises ``UnreadableInput``: the trial is a set-up error, never a wrong answer made up by the oracle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from harness.business_tools import quote as compute_quote
from harness.business_tools import schedule as compute_schedule
from harness.models import UnreadableInput

from . import _phrases as say
from ._tasks import (
    KINDS,
    BudgetCheck,
    Lookup,
    Quote,
    Remaining,
    Schedule,
    StateEcho,
    Task,
    Unknown,
    find_total,
    fmt,
    language,
    number,
    parse_task,
)
from ._tidy import tidy
from ._types import ScriptedModel, ScriptedReply, make_reply
from ._view import Call, View, derived_body, derived_tag

QUOTE_WINDOW = "alpha"
SCHEDULE_WINDOW = "beta"
MAX_ATTEMPTS = 2  # per tool and turn: a model that keeps failing gives up instead of looping


@dataclass(frozen=True)
class Answer:
    text: str


@dataclass(frozen=True)
class Act:
    name: str
    args: dict[str, Any]

    @property
    def arguments(self) -> str:
        return json.dumps(self.args, ensure_ascii=False)


Action = Answer | Act


def to_reply(view: View, action: Action) -> ScriptedReply:
    if isinstance(action, Answer):
        return make_reply(view.messages, content=action.text)
    return make_reply(view.messages, calls=[(action.name, action.arguments)])


def task_at(view: View, pos: int | None) -> Task:
    if pos is None:
        return Unknown("")
    message = view.messages[pos]
    state = derived_body(message) if derived_tag(message) == "context_state" else None
    return parse_task(view.text_at(pos), state)


class Oracle:
    """The careful policy; fault models reuse it for everything they do not get wrong."""

    def decide(self, view: View, pos: int | None = None) -> Action:
        request = view.request_index if pos is None else pos
        task = task_at(view, request)
        turn = view.calls_after(request)
        lang = language(view.text_at(request)) if request is not None else "zh"
        if isinstance(task, Remaining):
            return Answer(say.remaining(lang, task.budget, task.spent))
        if isinstance(task, Lookup | Quote | Schedule | BudgetCheck):
            tidying = tidy(view, request)
            if tidying is not None:
                return Act(*tidying)
        if isinstance(task, Lookup):
            return self._lookup(view, task, turn, lang)
        if isinstance(task, Quote):
            return self._quote(view, task, turn, lang)
        if isinstance(task, Schedule):
            return self._schedule(view, task, turn, lang)
        if isinstance(task, BudgetCheck):
            return self._budget_check(view, task, turn, lang)
        if isinstance(task, StateEcho):
            return Answer(f"当前位于窗口 {task.window_id}（{task.status}），没有新的请求需要处理。")
        if request is None:
            raise UnreadableInput("", "the request holds no user message")
        raise UnreadableInput(task.text, "it is none of the tasks the scripted models read: " + "; ".join(KINDS))

    # business tasks ------------------------------------------------------------------------------
    def _lookup(self, view: View, task: Lookup, turn: list[Call], lang: str = "zh") -> Action:
        tries = [c for c in turn if c.name == "budget_lookup" and c.arg("projectId") == task.project_id]
        for call in reversed(tries):
            if call.ok and call.result:
                return Answer(say.lookup_found(lang, task.project_id, call.result))
            if call.error_code == "project_not_found":
                return Answer(say.lookup_not_found(lang, task.project_id))
        if not view.offers("budget_lookup") or len(tries) >= MAX_ATTEMPTS:
            return Answer(say.lookup_unavailable(lang, task.project_id))
        return Act("budget_lookup", {"projectId": task.project_id})

    def _quote(self, view: View, task: Quote, turn: list[Call], lang: str = "zh") -> Action:
        handoff = (f"{view.current_window}已收到报价请求；下一步在{QUOTE_WINDOW}计算 {task.quantity} 台、"
                   f"单价 {fmt(task.unit_price)} 元、每台安装费 {fmt(task.install_fee)} 元的报价并记录总价，"
                   f"完成后汇报。")
        enter = self.enter(view, QUOTE_WINDOW, turn, resume=False, goal="完成报价并记录总价", handoff=handoff)
        if enter:
            return enter
        result = _last_ok(turn, "quote_calculate")
        if result is None:
            attempts = [c for c in turn if c.name == "quote_calculate"]
            if view.offers("quote_calculate") and len(attempts) < MAX_ATTEMPTS:
                return Act("quote_calculate", {"unitPrice": _json_number(task.unit_price),
                                               "quantity": task.quantity,
                                               "installFeePerUnit": _json_number(task.install_fee)})
            result = compute_quote(_json_number(task.unit_price), task.quantity, _json_number(task.install_fee))
        equipment, installation, total = (fmt(number(str(result[k]))) for k in ("equipment", "installation", "total"))
        memory = (f"报价：设备 {equipment} 元 + 安装 {installation} 元 = 总价 {total} 元"
                  f"（{task.quantity} 台 × 单价 {fmt(task.unit_price)} 元，每台安装费 {fmt(task.install_fee)} 元）")
        remember = self.remember(view, turn, memory, purpose="记录报价")
        if remember:
            return remember
        return Answer(say.quote_done(lang, equipment, installation, total, task.budget))

    def _schedule(self, view: View, task: Schedule, turn: list[Call], lang: str = "zh") -> Action:
        enter = self.enter(view, SCHEDULE_WINDOW, turn, resume=False, goal="安排安装排期",
                           handoff=(f"{view.current_window}报价已完成；下一步在{SCHEDULE_WINDOW}排期："
                                    f"{task.workdays} 个工作日，最早 {task.start} 开始；完成后汇报起止日期。"))
        if enter:
            return enter
        result = _last_ok(turn, "schedule_plan")
        if result is None:
            attempts = [c for c in turn if c.name == "schedule_plan"]
            if view.offers("schedule_plan") and len(attempts) < MAX_ATTEMPTS:
                return Act("schedule_plan", {"startDate": task.start, "workdays": task.workdays})
            first, last = compute_schedule(date.fromisoformat(task.start), task.workdays)
            result = {"startDate": first.isoformat(), "endDate": last.isoformat()}
        start, end = result.get("startDate"), result.get("endDate")
        remember = self.remember(view, turn, f"安装排期：{start} 至 {end}（{task.workdays} 个工作日）",
                                 purpose="记录排期")
        if remember:
            return remember
        return Answer(say.schedule_done(lang, start, end, task.workdays))

    def _budget_check(self, view: View, task: BudgetCheck, turn: list[Call], lang: str = "zh") -> Action:
        here = view.current_window
        handoff = (f"{here}排期已完成" if here == SCHEDULE_WINDOW else f"{here}的工作已完成")
        enter = self.enter(view, QUOTE_WINDOW, turn, resume=True, goal="完成报价并记录总价",
                           handoff=f"{handoff}；只核对{QUOTE_WINDOW}检查点，不覆写报价，随后汇报。",
                           purpose="复核报价")
        if enter:
            return enter
        total = quote_total(view)
        if total is None:
            return Answer(say.no_quote(lang))
        return Answer(say.budget_verdict(lang, total, task.budget))

    # window moves --------------------------------------------------------------------------------
    def enter(self, view: View, target: str, turn: list[Call], *, resume: bool, goal: str, handoff: str,
              purpose: str | None = None) -> Act | None:
        """The call that makes ``target`` the active window, or None when already there (or no windows)."""
        if not view.windows or view.current_window == target:
            return None
        tries = [c for c in turn if c.name == "context_window_open" and c.arg("windowId") == target]
        if len(tries) >= MAX_ATTEMPTS:
            return None  # give up on windows; work where we are
        expected = view.current_window
        if tries:
            code = tries[-1].error_code
            if code == "window_exists":
                resume = True
            elif code == "window_not_found":
                resume = False
            elif code == "context_window_mismatch" and tries[-1].error.get("currentWindowId"):
                expected = str(tries[-1].error["currentWindowId"])
        args: dict[str, Any] = {"purpose": purpose or ("恢复窗口" if resume else "按任务边界开新窗口")}
        if view.wants("context_window_open", "expectedWindowId"):
            args["expectedWindowId"] = expected
        args["windowId"] = target
        if not resume:
            args["goal"] = goal
        args["resume"] = resume
        args["input"] = handoff
        return Act("context_window_open", args)

    def remember(self, view: View, turn: list[Call], memory: str, purpose: str) -> Act | None:
        """Store ``memory`` as the active window's working memory once per turn (where windows exist)."""
        if not view.windows or not view.offers("context_window_memory_set"):
            return None
        tries = [c for c in turn if c.name == "context_window_memory_set"]
        if any(c.ok for c in tries) or len(tries) >= MAX_ATTEMPTS:
            return None
        expected = view.current_window
        if tries and tries[-1].error_code == "context_window_mismatch":
            expected = str(tries[-1].error.get("currentWindowId") or expected)
        args: dict[str, Any] = {"purpose": purpose}
        if view.wants("context_window_memory_set", "expectedWindowId"):
            args["expectedWindowId"] = expected
        args["memory"] = memory
        return Act("context_window_memory_set", args)


def quote_total(view: View) -> Decimal | None:
    """The stored quote total: the window's working memory first, then quote results, then answers."""
    total = find_total(view.working_memory)
    if total is not None:
        return total
    for call in reversed(view.calls):
        if call.name == "quote_calculate" and call.ok and call.result and "total" in call.result:
            return number(str(call.result["total"]))
    for text in reversed(view.answers_before(None)):
        total = find_total(text)
        if total is not None:
            return total
    return None


def _last_ok(turn: list[Call], name: str) -> dict[str, Any] | None:
    for call in reversed(turn):
        if call.name == name and call.ok and call.result:
            return call.result
    return None


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


class OracleModel(ScriptedModel):
    name = "oracle"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        return to_reply(view, self.policy.decide(view))
