"""A minimal host loop for the scripted-model tests, built on the real protocol package.

It freezes the view, projects the request with the protocol's own mapping (``Protocol.project``),
asks the scripted model, writes its message, dispatches context tools through the real dispatcher
and business tools through ``BusinessTools`` (E-3, E-5, E-6, P-44). It is small on purpose: the
real engine replaces it later; here it only has to show what each model does with each view.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from harness.business_tools import BusinessTools
from harness.engine._maintainer import maintenance_messages
from harness.scripted import ScriptedModel, get_scripted
from harness.scripted._maintainer import maintainer_reply
from protocols import (
    AgentConfig,
    FrozenView,
    MaintainerBinding,
    MaintenanceRequest,
    MessageDraft,
    Protocol,
    ToolCall,
    new_run_id,
    resolve_ref,
)
from protocols.store import MemoryStore

PROMPT = "你是项目助理，负责报价、排期和预算核对；简短回答并给出关键数字。\n\n{{context_protocol}}"
AGENT = AgentConfig(systemPrompt=PROMPT, inputs={"customer": "ACME", "currency": "CNY"}, contextMaintainer=True)
"""Bound to the context maintainer, as in the fixed plan: context_compress is offered (unified only)."""


async def scripted_maintainer(request: MaintenanceRequest) -> str:
    """The maintainer role as every scripted model plays it (harness.scripted._maintainer)."""
    return maintainer_reply(maintenance_messages(request)).content or ""


BINDING = MaintainerBinding(scripted_maintainer, keep_recent_groups=4)  # the fixed plan's keepRecentGroups
PROJECTS = {"P-17": {"budget": 9000, "spent": 6900}}

# the plan's groups: label -> (protocol ref, options)
GROUPS: dict[str, tuple[str, dict[str, Any]]] = {
    "A": ("unified@3", {"stateMessagePlacement": "trailing_assistant"}),
    "B": ("unified@3", {"stateMessagePlacement": "before_history_assistant"}),
    "C": ("unified@3", {"stateMessagePlacement": "trailing_user"}),
    "v2": ("unified@2", {}),
    "v1": ("unified@1", {}),
    "prefix": ("prefix@2", {}),
}
WINDOWED = ["A", "B", "C", "v2", "v1"]
TIDY = ["context_history_list", "context_fold_create", "context_compress"]
"""What the oracle does first on a request in a window holding a finished stage (issue 11)."""

SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
LOOKUP = "请查询项目 P-17 的预算和已支出，然后告诉我剩余预算。"
T1 = "客户 ACME 需要 3 台 X200 设备，单价 2000 元，每台安装费 300 元。请完成报价并告诉我总价。"
T2 = "接下来安排安装：需要 2 个工作日，最早 2026-10-16 开始。请排期并告诉我起止日期。"
T3 = "客户把预算调整为 9000 元。请回到报价，核对报价是否在预算内，不要覆写已有报价，核对后向我汇报。"


@dataclass
class Turn:
    answer: str | None
    status: str  # completed | step_limit
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # name, arguments, result
    requests: list[dict[str, Any]] = field(default_factory=list)  # each request as sent

    def called(self, name: str) -> list[dict[str, Any]]:
        return [result for n, _, result in self.calls if n == name]

    def codes(self) -> list[str | None]:
        return [None if r.get("success") else r.get("error", {}).get("code") for _, _, r in self.calls]


class FakeHost:
    def __init__(self, group: str, model: str | ScriptedModel, projects: dict[str, Any] | None = None,
                 max_steps: int = 12, binding: MaintainerBinding = BINDING) -> None:
        self.binding = binding
        ref, options = GROUPS[group]
        self.protocol: Protocol = resolve_ref(ref, options)
        self.model = get_scripted(model) if isinstance(model, str) else model
        self.business = BusinessTools(projects if projects is not None else PROJECTS)
        self.store = MemoryStore()
        self.sid = "s1"
        self.store.create_session(self.sid, {"activeWindow": "main"})
        self.max_steps = max_steps

    def active(self) -> str:
        return str(self.store.kv_get(self.sid, "activeWindow") or "main")

    def memory(self, window: str) -> str | None:
        record = self.store.kv_get(self.sid, f"window/{window}")
        return record.get("workingMemory") if isinstance(record, dict) else None

    def _write(self, run_id: str, **fields: Any) -> None:
        self.store.append(self.sid, MessageDraft(run_id=run_id, **fields))

    def send(self, text: str) -> Turn:
        run_id = new_run_id()
        self._write(run_id, window_id=self.active(), role="user", kind="input", content=text, input_run=run_id)
        turn = Turn(answer=None, status="step_limit")
        for _ in range(self.max_steps):
            frozen = FrozenView(revision=self.store.revision(self.sid), upper_bound=self.store.max_index(self.sid),
                                run_id=run_id)
            request = self.protocol.project(self.store, self.sid, frozen, AGENT,
                                            business_tools=self.business.schemas())
            turn.requests.append({"messages": request.messages, "tools": request.tools})
            reply = self.model.reply(request.messages, request.tools)
            window = self.active()  # call and result belong to the window active now (P-44)
            if not reply.tool_calls:
                self._write(run_id, window_id=window, role="assistant", kind="text", content=reply.content or "")
                turn.answer, turn.status = reply.content, "completed"
                return turn
            calls = tuple(ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in reply.tool_calls)
            self._write(run_id, window_id=window, role="assistant", kind="tool_call", content=reply.content or "",
                        tool_calls=calls, frozen_view=frozen)
            for position, call in enumerate(calls):
                result = self._dispatch(call, frozen, position)
                turn.calls.append((call.name, call.arguments, result))
                self._write(run_id, window_id=window, role="tool", kind="tool_result",
                            content=json.dumps(result, ensure_ascii=False), tool_call_id=call.id)
        return turn

    def _dispatch(self, call: ToolCall, frozen: FrozenView, position: int) -> dict[str, Any]:
        if position > 0:  # E-5: only the first call of a step runs
            return {"success": False, "error": {"code": "tool_call_limit_exceeded",
                                                "message": "one tool call per step; this one was not run"}}
        if call.name in self.business.names:
            return self.business.call(call.name, call.arguments)
        done = asyncio.run(self.protocol.dispatch_bound(self.store, self.sid, call, frozen, self.binding))
        return done.result
