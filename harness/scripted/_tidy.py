"""How the oracle tidies a window after a finished stage: fold, then compress (X-61).

Source: folds are for "同一目标内的冗长完整片段" and a fold summary is the agent's own record; an agent
bound to the context maintainer "也可以在阶段完成后主动调用" compression. When a new request arrives in
a window whose visible history holds a business tool exchange that was already answered (a finished
stage), the oracle, before anything else on that request:

1. lists the window's history (``context_history_list``);
2. folds the first listed group that is a complete, foldable business tool exchange followed by an
   answer (it is no longer needed word for word: its result was answered and kept in memory);
3. asks for compression (``context_compress``) where it is offered.

Everything is decided from the request: the visible calls and answers, the listing's own items
(indexes, kinds, foldability) and the results of this turn's calls. A step that failed is retried
once (``MAX_ATTEMPTS``); a mismatch takes the window the error names.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._view import Call, View, derived_tag

MAX_ATTEMPTS = 2
COMPRESS = "context_compress"
_EXCHANGE = ["assistant/tool_call", "tool/tool_result"]
_CALLED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(\{")


def _is_business(name: str) -> bool:
    return bool(name) and not name.startswith("context_")


def _answer_positions(view: View, before: int) -> list[int]:
    return [pos for pos, m in enumerate(view.messages[:before])
            if m.get("role") == "assistant" and not m.get("tool_calls") and derived_tag(m) is None]


def finished_stage(view: View, request: int) -> Call | None:
    """The first visible business call before the request that succeeded and was answered after."""
    answers = _answer_positions(view, request)
    for call in view.calls_before(request):
        if _is_business(call.name) and call.ok and any(pos > call.position for pos in answers):
            return call
    return None


def foldable_exchange(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first listed business tool exchange that is foldable and answered by a later text item."""
    for pos, item in enumerate(items):
        called = _CALLED.search(str(item.get("preview") or ""))
        if not (item.get("foldable") and item.get("kinds") == _EXCHANGE and called and _is_business(called[1])):
            continue
        if any(later.get("kinds") == ["assistant/text"] for later in items[pos + 1:]):
            return item
    return None


def _expected(view: View, tries: list[Call]) -> str:
    if tries and tries[-1].error_code == "context_window_mismatch" and tries[-1].error.get("currentWindowId"):
        return str(tries[-1].error["currentWindowId"])
    return view.current_window


def _summary(view: View, item: dict[str, Any]) -> str:
    """The oracle's own words for the folded exchange: which tool, that it was answered, what it gave."""
    called = _CALLED.search(str(item.get("preview") or ""))
    name = called[1] if called else "tool"
    result = next((c.result for c in reversed(view.calls) if c.name == name and c.ok and c.result), None) or {}
    facts = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in result.items() if k != "success")
    kept = "，并已记入窗口记忆" if view.working_memory else ""
    return f"已完成的 {name} 调用，结果已在回答中给出{kept}：{facts}"[:2000]


def _act(name: str, view: View, args: dict[str, Any], tries: list[Call]) -> tuple[str, dict[str, Any]]:
    if view.wants(name, "expectedWindowId"):
        args = {"purpose": args.pop("purpose"), "expectedWindowId": _expected(view, tries), **args}
    return name, args


def tidy(view: View, request: int | None) -> tuple[str, dict[str, Any]] | None:
    """The next tidying call (tool name, arguments) on this request, or None when there is none to make."""
    if request is None or not (view.offers("context_history_list") and view.offers("context_fold_create")):
        return None
    turn = view.calls_after(request)
    compressions = [c for c in turn if c.name == COMPRESS]
    if any(c.ok for c in compressions):  # done; the compression may have covered this turn's earlier calls
        return None
    folds = [c for c in turn if c.name == "context_fold_create"]
    folded = any(c.ok for c in folds)
    if not folded and finished_stage(view, request) is None:  # after its fold the exchange is no longer visible
        return None
    if not folded and len(folds) < MAX_ATTEMPTS:
        listings = [c for c in turn if c.name == "context_history_list"]
        listing = next((c for c in reversed(listings) if c.ok), None)
        if listing is None and len(listings) < MAX_ATTEMPTS:
            return "context_history_list", {"purpose": "阶段已完成，查看可折叠的完整历史", "limit": 50}
        item = foldable_exchange(list(((listing.result or {}) if listing else {}).get("items") or []))
        if item is not None:
            return _act("context_fold_create", view, {
                "purpose": "折叠已回答的工具往来", "fromIndex": item["firstIndex"], "throughIndex": item["lastIndex"],
                "summary": _summary(view, item)}, folds)
    if view.offers(COMPRESS) and len(compressions) < MAX_ATTEMPTS:
        return _act(COMPRESS, view, {"purpose": "阶段完成后压缩当前窗口"}, compressions)
    return None
