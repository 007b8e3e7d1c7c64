"""Builders for engine tests: the fixed scenario's agent, turns and variants."""

from __future__ import annotations

import asyncio
from typing import Any

from harness.business_tools import BusinessTools
from harness.engine import Engine, RunLimits, RunResult
from harness.models import ChatModel, make_model
from harness.scripted import get_scripted
from protocols import AgentConfig, HostOptions, resolve_ref
from protocols.store import MemoryStore, SessionStore

T1 = "客户 ACME 需要 3 台 X200 设备，单价 2000 元，每台安装费 300 元。请完成报价并告诉我总价。"
T2 = "接下来安排安装：需要 2 个工作日，最早 2026-10-16 开始。请排期并告诉我起止日期。"
T3 = "客户把预算调整为 9000 元。请回到报价，核对报价是否在预算内，不要覆写已有报价，核对后向我汇报。"
SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
AGENT = AgentConfig(systemPrompt="你是项目助理，负责报价、排期和预算核对；简短回答并给出关键数字。"
                                 "\n\n{{context_protocol}}",
                    inputs={"customer": "ACME", "currency": "CNY"})

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "prefix": ("prefix@2", {}),
    "v1": ("unified@1", {}),
    "v2": ("unified@2", {}),
    "A": ("unified@3", {"stateMessagePlacement": "trailing_assistant"}),
    "B": ("unified@3", {"stateMessagePlacement": "before_history_assistant"}),
    "C": ("unified@3", {"stateMessagePlacement": "trailing_user"}),
}


def make_engine(variant: str, model: str = "scripted/oracle", *, store: SessionStore | None = None,
                chat: ChatModel | None = None, host: HostOptions | None = None, **limits: Any) -> Engine:
    ref, options = VARIANTS[variant]
    return Engine(store=store or MemoryStore(), protocol=resolve_ref(ref, options), agent=AGENT,
                  model=chat or make_model(model, scripted=get_scripted), model_name=model,
                  business=BusinessTools({"P-17": {"budget": 9000, "spent": 6900}}), host=host,
                  limits=RunLimits(**limits))


def converse(engine: Engine, turns: list[str], session_id: str | None = None) -> list[RunResult]:
    async def go() -> list[RunResult]:
        sid = session_id or engine.create_session()
        return [await engine.run_send_input(sid, t) for t in turns]

    return asyncio.run(go())

SCENARIO = [T1, T2, T3]
