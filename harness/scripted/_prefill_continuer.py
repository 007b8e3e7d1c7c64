"""``scripted/prefill-continuer`` (X-62): the v2 symptom.

When the request ends with an assistant message that is not a tool call (the trailing
``[context_state]`` of placement A and of unified@2), the model treats it as a prefill and
continues that message instead of answering the user: like the small real model recorded under
llama.cpp (which returned the state block itself), it writes the block's JSON out again and goes
on about the window, never answering. Otherwise it behaves as the oracle.
"""

from __future__ import annotations

import json
from typing import Any

from ._oracle import Oracle, to_reply
from ._types import ScriptedModel, ScriptedReply, make_reply
from ._view import View, derived_body, derived_tag


def continuation(message: dict[str, Any]) -> str:
    if derived_tag(message) == "context_state":
        state = derived_body(message)
        window = state.get("windowId") or "?"
        entered = state.get("enteredFrom")
        origin = f"，从 {entered} 进入" if entered else ""
        body = json.dumps(state, ensure_ascii=False)
        return f"{body}\n当前执行位置：窗口 {window}，状态 {state.get('status') or '?'}{origin}。继续在该窗口工作。"
    return "（续）继续上文。"


class PrefillContinuerModel(ScriptedModel):
    name = "prefill-continuer"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        last = messages[-1] if messages else {}
        if last.get("role") == "assistant" and not last.get("tool_calls"):
            return make_reply(messages, content=continuation(last))
        return to_reply(view, self.policy.decide(view))
