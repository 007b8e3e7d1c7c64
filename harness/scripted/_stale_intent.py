"""``scripted/stale-intent`` (X-62): the v1 symptom of the source.

On a turn where it has entered a window whose visible history ends with an older window-switch
intent (the ``context_window_open`` of another window, e.g. "open beta" at the end of ``alpha``),
it believes it is still in the window that intent opened. It writes that window's work (the
schedule dates) as working memory, declaring the intent's window as ``expectedWindowId`` where the
schema has it. Under v2/v3 that write fails with ``context_window_mismatch``; under v1 it succeeds
and corrupts the active window's memory. Either way it then continues as the oracle, which never
writes on the budget check.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from harness.business_tools import schedule as compute_schedule

from ._oracle import Act, Oracle, to_reply
from ._tasks import Schedule, parse_schedule
from ._types import ScriptedModel, ScriptedReply
from ._view import Call, View


def stale_intent(view: View) -> Call | None:
    """The window switch the history before the request ends with, if it points elsewhere."""
    if not view.windows:
        return None
    before = view.calls_before(view.request_index)
    if not before:
        return None
    last = before[-1]
    target = last.arg("windowId")
    if last.name != "context_window_open" or not last.ok or not target or target == view.current_window:
        return None
    return last


def intended_schedule(view: View, intent: Call) -> Schedule | None:
    """What the stale intent was about to do: read from its handoff, else from earlier requests."""
    for text in (str(intent.arg("input") or ""), str(intent.arg("goal") or "")):
        found = parse_schedule(text)
        if found:
            return found
    for text in reversed(view.user_texts_before(view.request_index)):
        found = parse_schedule(text)
        if found:
            return found
    return None


class StaleIntentModel(ScriptedModel):
    name = "stale-intent"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        intent = stale_intent(view)
        turn = view.calls_after(view.request_index)
        wrote = any(c.name == "context_window_memory_set" for c in turn)
        if intent is not None and not wrote and view.offers("context_window_memory_set"):
            plan = intended_schedule(view, intent)
            if plan is not None:
                first, last = compute_schedule(date.fromisoformat(plan.start), plan.workdays)
                args: dict[str, Any] = {"purpose": "记录排期"}
                if view.wants("context_window_memory_set", "expectedWindowId"):
                    args["expectedWindowId"] = str(intent.arg("windowId"))
                args["memory"] = f"安装排期：{first.isoformat()} 至 {last.isoformat()}（{plan.workdays} 个工作日）"
                return to_reply(view, Act("context_window_memory_set", args))
        return to_reply(view, self.policy.decide(view))
