"""Reasoning models in a tool loop, end to end (E-4): the engine keeps what the provider returned for
reasoning on the raw assistant message and the next call sends back what the provider requires.

Against the strict emulators: Anthropic with ``reasoning_effort=low`` refuses a tool-use turn that
does not start with its signed thinking block and any prefill; Gemini 3 refuses a function call
without its thought signature. The output cap sent is the plan's plus the thinking budget.
"""

from __future__ import annotations

import pytest

from harness.wire import analyze_wire
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator
from tests.helpers.wire_requests import LOOKUP, SIMPLE
from tests.helpers.wire_trials import CAP, KEY_ENV, predicted, provider_requests, trial

LOW = {"reasoning_effort": "low"}
SONNET = "anthropic/claude-sonnet-4-5"
PRO = "gemini/gemini-3-pro-preview"


@pytest.fixture(autouse=True)
def emulator_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "emulator-key-not-secret-0123")


@pytest.mark.parametrize("group", ["B", "C", "v1"])
def test_thinking_blocks_go_back_in_the_anthropic_tool_loop(group: str,
                                                            anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    result, store = trial(SONNET, base, group, LOOKUP, extra=LOW)
    assert result.status == "completed" and "2100" in str(result.final_answer), result
    assert emulator.rejections == []
    first, second = provider_requests(store, result)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 1024} and first["max_tokens"] == CAP + 1024
    tool_turn = next(t for t in analyze_wire(second).turns if "tool call" in t.blocks)
    assert tool_turn.blocks == ["thinking", "tool call"]
    stored = next(m for m in store.all_messages(result.session_id) if m.tool_calls)
    assert stored.reasoning and stored.reasoning["thinking_blocks"][0]["signature"]
    assert result.usage.reasoning_tokens > 0 and result.usage.output_tokens > result.usage.reasoning_tokens
    assert all(call.usage.reasoning_tokens > 0 for call in result.calls)


@pytest.mark.parametrize("group", ["A", "v2"])
def test_a_prefill_with_thinking_is_rejected_as_predicted(group: str,
                                                          anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    assert predicted(SONNET, group, LOW) == "rejected"
    result, _ = trial(SONNET, base, group, SIMPLE, extra=LOW)
    assert (result.status, result.error_class) == ("error", "provider_rejected")
    assert [e.status for e in emulator.exchanges] == [400]  # one call, not retried
    assert "must start with a thinking block" in str(emulator.rejections[0])


@pytest.mark.parametrize("group", ["B", "C", "v1"])
def test_gemini_signatures_round_trip_with_thinking(group: str, gemini_server: tuple[GeminiEmulator, str]) -> None:
    emulator, base = gemini_server
    result, store = trial(PRO, base, group, LOOKUP, extra=LOW)
    assert result.status == "completed" and "2100" in str(result.final_answer), result
    assert emulator.rejections == [] and result.usage.reasoning_tokens > 0
    stored = next(m for m in store.all_messages(result.session_id) if m.tool_calls)
    assert stored.tool_calls and "__thought__" in stored.tool_calls[0].id
    assert stored.reasoning and stored.reasoning["provider_specific_fields"]
