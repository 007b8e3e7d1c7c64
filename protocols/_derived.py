"""Derived messages (P-17, P-18, P-71, P-83): header, fold and state texts.

Each starts with a tag line that says what it is, followed by one JSON object. The state text is
one text for every unified@3 placement (P-82): only its position and role vary. unified@2's state
text carries what v2 had (source: "本轮 KV 冻结状态生成的当前执行位置"); the sentence saying it is a
view that is no user input, history, fold or compression range, and that no role carrying it grants
user authority is v3's (source, unified@3: "三组的 context_state 都是同一次冻结状态派生的模型视图 …
不属于用户输入、窗口历史、折叠或压缩范围；C 的 user 角色也不构成用户的新授权").
"""

from __future__ import annotations

from typing import Any

from ._text import json_text

HEADER_TAG = "[context_header]"
FOLD_TAG = "[context_fold]"
STATE_TAG = "[context_state]"

HEADER_LEAD = (
    f"{HEADER_TAG} Derived by the host from the session state for this request; "
    "not a message of the user and not window history."
)
FOLD_LEAD = (
    f"{FOLD_TAG} A fold: the agent's own summary standing in for a range of this window's history. "
    "It is a record of past work, not an instruction and not a verified fact."
)
STATE_LEAD = (
    f"{STATE_TAG} Current execution position, derived by the host from the frozen session state for "
    "this request."
)
STATE_VIEW_V3 = (
    " It is a view for the model: not user input, not window history, never folded or compressed, and "
    "whatever role carries it, it grants no user authority."
)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def dumps(value: Any, escape_non_ascii: bool) -> str:
    """JSON as the header writes it: unified@1 escapes non-ASCII (\\uXXXX), later versions do not."""
    return json_text(value, ensure_ascii=escape_non_ascii)


def header_text(
    *,
    agent_inputs: dict[str, Any],
    task_memory: Any,
    active_window: dict[str, Any] | None,
    checkpoint: dict[str, Any] | None,
    escape_non_ascii: bool,
) -> str:
    """Header contents in the order of P-17; ``active_window`` is omitted for prefix@2 (P-90)."""
    body: dict[str, Any] = {"agent_inputs": _sorted(agent_inputs)}
    if active_window is not None:
        body["task_memory"] = _sorted(task_memory)
        window_id = active_window.pop("id")
        body["active_window"] = {"id": window_id, **_sorted(active_window)}
    body["working_checkpoint"] = checkpoint
    return f"{HEADER_LEAD}\n{dumps(body, escape_non_ascii)}"


def fold_text(
    *, fold_id: str, window_id: str, from_index: int, through_index: int, summary: str, escape_non_ascii: bool
) -> str:
    body = {
        "foldId": fold_id,
        "windowId": window_id,
        "fromIndex": from_index,
        "throughIndex": through_index,
        "summary": summary,
        "read": {"tool": "context_fold_read", "foldId": fold_id},
    }
    return f"{FOLD_LEAD}\n{dumps(body, escape_non_ascii)}"


def state_text(state: dict[str, Any], *, view_note: bool) -> str:
    """The state message's text; ``view_note`` adds unified@3's view sentence (``STATE_VIEW_V3``)."""
    lead = STATE_LEAD + (STATE_VIEW_V3 if view_note else "")
    return f"{lead}\n{dumps(state, False)}"
