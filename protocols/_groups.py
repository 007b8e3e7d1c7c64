"""Interaction groups (P-21): the units a fold range and a maintenance boundary may not cut."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ._messages import RawMessage

# a user-side message is a group of its own and never foldable; the reason names its kind
_USER_REASON = {"input": "user_input", "approval_feedback": "approval_feedback",
                "runtime_instruction": "runtime_instruction"}


@dataclass(frozen=True)
class Group:
    messages: tuple[RawMessage, ...]
    complete: bool
    reason: str | None
    """Why the group is not foldable (``user_input``, ``incomplete_group``, ``unpaired_call``, …)."""

    @property
    def first_index(self) -> int:
        return self.messages[0].index

    @property
    def last_index(self) -> int:
        return self.messages[-1].index

    @property
    def foldable(self) -> bool:
        return self.reason is None


def interaction_groups(messages: Iterable[RawMessage]) -> list[Group]:
    """Cut one window's messages (in index order) into interaction groups.

    - a ``user/input``, ``user/approval_feedback`` or ``user/runtime_instruction`` is a group of
      its own, never foldable;
    - an ``assistant/text`` is a group;
    - an ``assistant/tool_call`` opens a group lasting until every call opened in it has a result;
      a further tool-call message arriving while calls are open joins it;
    - a group still open at the end is incomplete (``incomplete_group``); one cut short by a message
      that is not a result keeps its open calls unpaired (``unpaired_call``);
    - a result with no open call is a group of its own (``unpaired_call``).
    """
    groups: list[Group] = []
    current: list[RawMessage] = []
    open_calls: set[str] = set()

    def close(reason: str | None) -> None:
        nonlocal current
        if current:
            groups.append(Group(tuple(current), complete=reason is None, reason=reason))
        current = []
        open_calls.clear()

    for msg in messages:
        if msg.kind == "tool_result":
            if msg.tool_call_id in open_calls:
                current.append(msg)
                open_calls.discard(msg.tool_call_id)
                if not open_calls:
                    close(None)
            else:
                if open_calls:
                    close("unpaired_call")
                groups.append(Group((msg,), complete=False, reason="unpaired_call"))
            continue
        if msg.kind == "tool_call":
            current.append(msg)
            open_calls.update(c.id for c in msg.tool_calls or ())
            continue
        if open_calls:
            close("unpaired_call")
        if msg.kind in _USER_REASON:
            groups.append(Group((msg,), complete=True, reason=_USER_REASON[msg.kind]))
        else:  # assistant/text
            groups.append(Group((msg,), complete=True, reason=None))
    if open_calls:
        close("incomplete_group")
    return groups
