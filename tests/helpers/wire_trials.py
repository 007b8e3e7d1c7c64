"""One trial of a fixed plan group through the harness's engine and litellm adapter, as the runner
runs it (a fresh root session, one user input), and the preflight verdict for the group's request."""

from __future__ import annotations

import asyncio
from typing import Any

from harness.business_tools import BusinessTools
from harness.engine import Engine, RunLimits, RunResult
from harness.models import LiteLLMModel
from harness.wire import build_wire_body, output_cap, preflight_body, worst
from protocols import resolve
from protocols.store import MemoryStore

from .wire_requests import GROUPS, agent, fixed_plan, group_request

KEY_ENV = "EMULATOR_API_KEY"
CAP = 1024  # the fixed plan's maxOutputTokensPerCall


def trial(model: str, base: str, group: str, text: str, extra: dict[str, Any] | None = None,
          temperature: float | None = 0.0) -> tuple[RunResult, MemoryStore]:
    """The key comes from ``EMULATOR_API_KEY``; the output cap is the plan's plus any thinking budget."""
    store = MemoryStore()
    protocol_id, version, options = GROUPS[group]
    limits = RunLimits(max_output_tokens=output_cap(model, CAP, extra), temperature=temperature,
                       timeout_seconds=10, extra=extra or {})
    engine = Engine(store=store, protocol=resolve(protocol_id, version, options), agent=agent(),
                    model=LiteLLMModel(model, api_base=base, api_key_env=KEY_ENV, max_retries=0),
                    model_name=model, business=BusinessTools(fixed_plan()["agent"]["projects"]), limits=limits)
    session = engine.create_session()
    return asyncio.run(engine.run_send_input(session, text)), store


def predicted(model: str, group: str, extra: dict[str, Any] | None = None) -> str:
    """The preflight's verdict on the group's first request, built offline as the trial sends it."""
    request = group_request(group)
    body = build_wire_body(model, request.messages, request.tools, extra=extra,
                           max_output_tokens=output_cap(model, CAP, extra))
    return worst(preflight_body(model, body)).kind


def provider_requests(store: MemoryStore, result: RunResult) -> list[dict[str, Any]]:
    """The bodies the agent's calls sent (the snapshots' ``providerRequest``), in order."""
    snaps = [snap for _, snap in store.snapshots(result.session_id)]
    return [s["providerRequest"] for s in snaps if s.get("role") == "agent" and s.get("providerRequest")]
