"""The fixed plan's ``simple`` and ``tool_continuation`` stages end to end over each provider format.

The harness's own engine and litellm adapter against the strict emulators on loopback: each group's
trial on a fresh root session, as the runner runs them. What the preflight predicts from the body
built offline is what the provider then does, and the body each call sent (the snapshot's
``providerRequest``) reads as the offline analysis says.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.business_tools import BusinessTools
from harness.engine import Engine, RunLimits, RunResult
from harness.models import LiteLLMModel
from harness.wire import analyze_wire, build_wire_body, preflight_body, worst
from protocols import resolve
from protocols.store import MemoryStore
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator
from tests.helpers.wire_requests import GROUPS, LOOKUP, SIMPLE, agent, fixed_plan, group_request

STAGED = ["A", "B", "C", "v2", "v1"]  # the groups of the two stages


@pytest.fixture(autouse=True)
def emulator_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMULATOR_API_KEY", "emulator-key-not-secret-0123")


def trial(model: str, base: str, group: str, text: str) -> tuple[RunResult, MemoryStore]:
    # litellm refuses ``temperature`` for Gemini 3.6+ before any call (UnsupportedParamsError): sent unset there
    temperature = None if model == "gemini/gemini-3.6-flash" else 0.0
    store = MemoryStore()
    protocol_id, version, options = GROUPS[group]
    engine = Engine(store=store, protocol=resolve(protocol_id, version, options), agent=agent(),
                    model=LiteLLMModel(model, api_base=base, api_key_env="EMULATOR_API_KEY", max_retries=0),
                    model_name=model, business=BusinessTools(fixed_plan()["agent"]["projects"]),
                    limits=RunLimits(max_output_tokens=1024, temperature=temperature, timeout_seconds=10))
    session = engine.create_session()
    return asyncio.run(engine.run_send_input(session, text)), store


def predicted(model: str, group: str) -> str:
    request = group_request(group)
    return worst(preflight_body(model, build_wire_body(model, request.messages, request.tools,
                                                       max_output_tokens=1024))).kind


def provider_requests(store: MemoryStore, result: RunResult) -> list[dict[str, Any]]:
    snaps = [snap for _, snap in store.snapshots(result.session_id)]
    return [s["providerRequest"] for s in snaps if s.get("role") == "agent" and s.get("providerRequest")]


def check_stages(model: str, base: str, group: str) -> None:
    simple, _ = trial(model, base, group, SIMPLE)
    lookup, store = trial(model, base, group, LOOKUP)
    if predicted(model, group) == "rejected":
        for result in (simple, lookup):
            assert (result.status, result.error_class) == ("error", "provider_rejected"), result
        return
    assert simple.status == "completed" and "7650" in str(simple.final_answer)
    assert lookup.status == "completed" and "2100" in str(lookup.final_answer)
    assert [c.name for c in lookup.tool_calls] == ["budget_lookup"]
    bodies = provider_requests(store, lookup)
    assert len(bodies) == 2 and "emulator-key-not-secret-0123" not in str(bodies)
    if group == "C":  # what the provider received: the state inside another turn
        assert analyze_wire(bodies[0]).state.mergedWith == ["user input"]  # type: ignore[union-attr]
        assert analyze_wire(bodies[1]).state.mergedWith == (  # type: ignore[union-attr]
            [] if model.startswith("gemini/") else ["tool result"])


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-6"])
@pytest.mark.parametrize("group", STAGED)
def test_two_stages_over_anthropic_messages(model: str, group: str,
                                            anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    check_stages(model, base, group)
    rejected = [e for e in emulator.exchanges if e.status != 200]
    assert bool(rejected) == (predicted(model, group) == "rejected")


@pytest.mark.parametrize("model", ["gemini/gemini-3-pro-preview", "gemini/gemini-3.6-flash"])
@pytest.mark.parametrize("group", STAGED)
def test_two_stages_over_gemini_generate_content(model: str, group: str,
                                                 gemini_server: tuple[GeminiEmulator, str]) -> None:
    emulator, base = gemini_server
    check_stages(model, base, group)
    rejected = [e for e in emulator.exchanges if e.status != 200]
    assert bool(rejected) == (predicted(model, group) == "rejected")
