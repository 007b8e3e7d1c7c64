"""The first agent requests of the fixed plan's groups, built by the protocols package (no model).

``group_request(group)`` projects a fresh root session holding one user input, as the runner's
first step does; ``tool_exchange=True`` adds the ``budget_lookup`` call and its result that the
tool_continuation stage's second step sees. The agent (system prompt, inputs, maintainer binding)
and business tools are the fixed plan's.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from harness.business_tools import BusinessTools
from protocols import AgentConfig, ProjectedRequest, resolve

from .builders import SessionBuilder

PLAN = Path(__file__).resolve().parents[2] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
GROUPS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "A": ("unified", 3, {"stateMessagePlacement": "trailing_assistant"}),
    "B": ("unified", 3, {"stateMessagePlacement": "before_history_assistant"}),
    "C": ("unified", 3, {"stateMessagePlacement": "trailing_user"}),
    "v2": ("unified", 2, {}),
    "v1": ("unified", 1, {}),
    "prefix": ("prefix", 2, {}),
}
SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
LOOKUP = "请查询项目 P-17 的预算和已支出，然后告诉我剩余预算。"


@cache
def fixed_plan() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PLAN.read_text(encoding="utf-8"))
    return data


def agent() -> AgentConfig:
    spec = fixed_plan()["agent"]
    return AgentConfig(systemPrompt=spec["systemPrompt"], inputs=spec["inputs"],
                       contextMaintainer=bool(spec.get("contextMaintainer")))


def group_request(group: str, text: str = SIMPLE, tool_exchange: bool = False, call_id: str = "toolu_lookup_1",
                  arguments: str = '{"projectId": "P-17"}') -> ProjectedRequest:
    """The group's request after ``text``; with ``tool_exchange``, after the ``budget_lookup`` call
    ``call_id`` (``arguments``) and the result the fixed plan's business tools give it."""
    protocol_id, version, options = GROUPS[group]
    protocol = resolve(protocol_id, version, options)
    business = BusinessTools(fixed_plan()["agent"]["projects"])
    session = SessionBuilder()
    session.user(text)
    if tool_exchange:
        session.call("budget_lookup", arguments, call_id=call_id)
        session.result(call_id, business.call("budget_lookup", arguments))
    return protocol.project(session.store, session.session_id, session.frozen(), agent(),
                            business_tools=business.schemas())
