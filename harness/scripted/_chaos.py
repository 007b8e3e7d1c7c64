"""``scripted/chaos`` (X-62, E-5, E-6): model mistakes, then a correct finish.

In the first turn of a session, while still in the window the session started in, it makes one
mistake per step: malformed JSON arguments, an unknown tool, two calls in one step (when two
harmless calls exist), an over-long fold summary (when ``context_fold_create`` is offered). Each
mistake is recognised from the calls and results already visible, so none repeats; then it
finishes like the oracle.
"""

from __future__ import annotations

import json
from typing import Any

from ._oracle import Act, Oracle, to_reply
from ._types import ScriptedModel, ScriptedReply, make_reply
from ._view import MAIN, Call, View

SUMMARY_LIMIT = 2000
# Over the 2,000-unit summary limit yet well inside a 1,024-token output cap (~450 tokens): a real
# provider cuts a reply at max_tokens, and a cut summary would be malformed JSON, not an over-long one.
OVERLONG_SUMMARY = "Quote, schedule and budget check: every detail of the earlier record. " * 30
HARMLESS_READS = ("context_window_list", "context_history_list", "context_fold_list")
BUSINESS = ("budget_lookup", "quote_calculate", "schedule_plan")


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def first_turn(view: View) -> bool:
    """No earlier request or answer is visible and we are where the session started."""
    pos = view.request_index
    return (pos is not None and not view.user_texts_before(pos) and not view.answers_before(pos)
            and view.current_window == MAIN)


def _malformed(call: Call) -> bool:
    return call.args is None


def _overlong_fold(call: Call) -> bool:
    return call.name == "context_fold_create" and utf16_units(str(call.arg("summary") or "")) > SUMMARY_LIMIT


class ChaosModel(ScriptedModel):
    name = "chaos"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        next_action = self.policy.decide(view)
        if not first_turn(view) or not view.tool_names:
            return to_reply(view, next_action)
        turn = view.calls_after(view.request_index)
        if not any(_malformed(c) for c in turn):
            if isinstance(next_action, Act):
                return make_reply(messages, calls=[(next_action.name, next_action.arguments[:-1])])
            return make_reply(messages, calls=[(view.tool_names[0], '{"purpose": "检查当前状态"')])
        if not any(not view.offers(c.name) for c in turn):
            name = "context_window_teleport"
            while view.offers(name):
                name += "_x"
            return make_reply(messages, calls=[(name, json.dumps({"purpose": "直接跳到结果"}, ensure_ascii=False))])
        pair = self._two_calls(view, next_action)
        if pair and not any(c.batch >= 2 for c in turn):
            return make_reply(messages, calls=pair)
        if view.offers("context_fold_create") and not any(_overlong_fold(c) for c in turn):
            args: dict[str, Any] = {"purpose": "折叠早先记录", "fromIndex": 1, "throughIndex": 1,
                                    "summary": OVERLONG_SUMMARY}
            if view.wants("context_fold_create", "expectedWindowId"):
                args["expectedWindowId"] = view.current_window
            return make_reply(messages, calls=[("context_fold_create", json.dumps(args, ensure_ascii=False))])
        return to_reply(view, next_action)

    @staticmethod
    def _two_calls(view: View, next_action: Act | Any) -> list[tuple[str, str]] | None:
        """Two calls that change nothing: two context reads, else the oracle's next business call twice."""
        reads = [name for name in HARMLESS_READS if view.offers(name)]
        if len(reads) >= 2:
            return [(name, json.dumps({"purpose": "查看现状"}, ensure_ascii=False)) for name in reads[:2]]
        if isinstance(next_action, Act) and next_action.name in BUSINESS:
            return [(next_action.name, next_action.arguments)] * 2
        return None
