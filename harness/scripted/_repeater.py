"""``scripted/repeater`` (X-62, X-50): repeats a read tool call before answering.

When the oracle would answer, it first repeats the most recent successful read-only call of this
turn (same name, same arguments) once, learning nothing new; then it answers as the oracle.
Read-only: the context read tools (P-22) and the business tools, which are pure.
"""

from __future__ import annotations

from typing import Any

from ._oracle import Answer, Oracle, to_reply
from ._types import ScriptedModel, ScriptedReply, make_reply
from ._view import Call, View

READ_TOOLS = frozenset({
    "context_window_list", "context_window_search", "context_window_read", "context_history_list",
    "context_fold_list", "context_fold_read", "budget_lookup", "quote_calculate", "schedule_plan",
})


def signature(call: Call) -> tuple[str, str]:
    """Name and arguments without ``purpose`` (X-50)."""
    args = {k: v for k, v in (call.args or {}).items() if k != "purpose"}
    return call.name, repr(sorted(args.items()))


class RepeaterModel(ScriptedModel):
    name = "repeater"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        action = self.policy.decide(view)
        if isinstance(action, Answer):
            turn = view.calls_after(view.request_index)
            reads = [c for c in turn if c.name in READ_TOOLS and c.ok]
            if reads:
                last = reads[-1]
                if sum(signature(c) == signature(last) for c in turn) == 1:
                    return make_reply(messages, calls=[(last.name, last.arguments)])
        return to_reply(view, action)
