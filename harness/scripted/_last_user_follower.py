"""``scripted/last-user-follower`` (X-62): the risk of placement C.

It takes the last user-role message as the request, whatever it is. Under C that is the
``[context_state]`` block, so it answers about the state (off-topic); elsewhere the last user
message is the real request and it behaves as the oracle.
"""

from __future__ import annotations

from typing import Any

from ._oracle import Oracle, to_reply
from ._types import ScriptedModel, ScriptedReply
from ._view import View


class LastUserFollowerModel(ScriptedModel):
    name = "last-user-follower"

    def __init__(self) -> None:
        self.policy = Oracle()

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        view = View(messages, tools)
        return to_reply(view, self.policy.decide(view, view.last_user_index))
