"""Routing one step's tool calls (E-5, E-6, P-40 … P-44).

The first call of a step is executed: a context tool through the protocol's dispatcher, a
business tool through the plan's tools, anything else answered ``unknown_tool``. Every further
call of the same step is answered ``tool_call_limit_exceeded`` so pairing stays valid. Model
mistakes are results, never exceptions.
"""

from __future__ import annotations

from typing import Any

from harness.business_tools import BusinessTools
from protocols import Dispatched, FrozenView, MaintainerBinding, Protocol, RawMessage, ToolCall
from protocols._text import json_text
from protocols.store import SessionStore


def error_result(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message, **extra}}


LIMIT_EXCEEDED = error_result(
    "tool_call_limit_exceeded", "only one tool call per step is executed; call the others one at a time"
)


class ToolRouter:
    """``maintainer_bound``: the agent is bound to the host's context maintainer, so ``context_compress``
    is one of its context tools (run with the ``MaintainerBinding`` each call hands in)."""

    def __init__(self, protocol: Protocol, business: BusinessTools | None, *, maintainer_bound: bool = False) -> None:
        self.protocol = protocol
        self.business = business
        self._context_tools = set(protocol.tool_names(maintainer_bound=maintainer_bound))
        self._business_tools = set(business.names) if business else set()

    def names(self) -> list[str]:
        return sorted(self._context_tools | self._business_tools)

    async def execute(
        self, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
        binding: MaintainerBinding | None = None,
    ) -> Dispatched:
        """Run one call. Replays return the stored receipt (P-42)."""
        if call.name in self._context_tools:
            return await self.protocol.dispatch_bound(store, session_id, call, frozen, binding)
        stored = store.receipt(session_id, call.id)
        if stored is not None:
            return Dispatched(dict(stored), replayed=True)
        if call.name in self._business_tools and self.business is not None:
            result = self.business.call(call.name, call.arguments)
        else:
            known = ", ".join(self.names()) or "(none)"
            result = error_result("unknown_tool", f"no tool named {call.name!r}; the tools are: {known}")
        return Dispatched(dict(store.put_receipt(session_id, call.id, result)), replayed=False)


def result_content(result: dict[str, Any]) -> str:
    return json_text(result)


def outcome(result: dict[str, Any]) -> tuple[bool, str | None]:
    """(success, error code) of a tool result."""
    if result.get("success") is True:
        return True, None
    error = result.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return False, str(code) if code else "error"


def pending_calls(store: SessionStore, session_id: str) -> tuple[RawMessage, list[ToolCall]] | None:
    """Tool calls of the session's last assistant message that still have no result (E-12 recovery)."""
    last = store.max_index(session_id)
    if last == 0:
        return None
    # walk back over trailing results to the call message they answer
    index = last
    answered: set[str] = set()
    while index >= 1:
        msg = store.message_at(session_id, index)
        if msg is None:
            return None
        if msg.kind == "tool_result":
            answered.add(msg.tool_call_id or "")
            index -= 1
            continue
        if msg.kind == "tool_call":
            pending = [c for c in msg.tool_calls or () if c.id not in answered]
            return (msg, pending) if pending else None
        return None
    return None

