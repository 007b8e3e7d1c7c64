"""The strict Anthropic Messages emulator, reached through litellm's real client (no mock in between).

``api_base`` is ``http://127.0.0.1:PORT``: litellm appends ``/v1/messages`` itself.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from harness.models import LiteLLMModel, ModelRequest, ensure_litellm
from harness.wire import request_wire_body
from tests.helpers.emulators import AnthropicEmulator
from tests.helpers.wire_requests import LOOKUP, group_request

SONNET = "anthropic/claude-sonnet-4-5"
Server = tuple[AnthropicEmulator, str]


def ask(base: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], model: str = SONNET,
        **params: Any) -> Any:
    litellm, _ = ensure_litellm()
    params.setdefault("max_tokens", 1024)
    return asyncio.run(litellm.acompletion(model=model, api_base=base, api_key="test", messages=messages,
                                           tools=tools, timeout=10, num_retries=0, **params))


def tool_loop(base: str, group: str, keep_thinking: bool = True, **params: Any) -> Any:
    """Both calls of the tool_continuation stage: the second request is the protocol's projection after the
    call and its result, with the provider's thinking blocks on the call (as a client that keeps them sends)."""
    request = group_request(group, text=LOOKUP)
    first = ask(base, request.messages, request.tools, **params).choices[0].message
    call = first.tool_calls[0]
    assert call.function.name == "budget_lookup"
    second = group_request(group, LOOKUP, tool_exchange=True, call_id=call.id, arguments=call.function.arguments)
    messages = json.loads(json.dumps(second.messages))
    if keep_thinking and getattr(first, "thinking_blocks", None):
        next(m for m in messages if m.get("tool_calls"))["thinking_blocks"] = first.thinking_blocks
    return ask(base, messages, second.tools, **params)


def test_simple_stage_is_answered_from_the_request(anthropic_server: Server) -> None:
    emulator, base = anthropic_server
    request = group_request("C")
    response = ask(base, request.messages, request.tools)
    assert "7650" in response.choices[0].message.content
    assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0
    assert [e.status for e in emulator.exchanges] == [200]
    assert emulator.exchanges[0].body["messages"][-1]["content"][-1]["text"].startswith("[context_state]")


@pytest.mark.parametrize("group", ["B", "C", "v1"])
def test_tool_continuation_round_trip(anthropic_server: Server, group: str) -> None:
    emulator, base = anthropic_server
    answer = tool_loop(base, group).choices[0].message.content
    assert "2100" in answer and emulator.rejections == []


def test_thinking_blocks_sent_back_pass_and_reasoning_tokens_are_reported(anthropic_server: Server) -> None:
    emulator, base = anthropic_server
    response = tool_loop(base, "C", reasoning_effort="low", max_tokens=1024 + 1024)
    assert "2100" in response.choices[0].message.content and emulator.rejections == []
    assert response.usage.completion_tokens_details.reasoning_tokens > 0
    second = emulator.exchanges[-1].body
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 1024} and second["max_tokens"] == 2048
    assert second["messages"][2]["content"][0]["type"] == "thinking"


def test_thinking_blocks_dropped_in_the_tool_loop_are_refused(anthropic_server: Server) -> None:
    emulator, base = anthropic_server
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="must start with a thinking block"):
        tool_loop(base, "C", keep_thinking=False, reasoning_effort="low", max_tokens=2048)
    assert [e.status for e in emulator.exchanges] == [200, 400]


def test_a_forged_signature_is_refused(anthropic_server: Server) -> None:
    _, base = anthropic_server
    request = group_request("C", tool_exchange=True)
    messages = json.loads(json.dumps(request.messages))
    call = next(m for m in messages if m.get("tool_calls"))
    call["thinking_blocks"] = [{"type": "thinking", "thinking": "lookup", "signature": "Zm9yZ2Vk"}]
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="Invalid `signature`"):
        ask(base, messages, request.tools, reasoning_effort="low", max_tokens=2048)


@pytest.mark.parametrize(("model", "params", "refused"), [
    ("anthropic/claude-opus-4-6", {}, "does not support assistant message prefill"),
    ("anthropic/claude-sonnet-4-6", {}, "does not support assistant message prefill"),
    (SONNET, {"reasoning_effort": "low", "max_tokens": 2048}, "must start with a thinking block"),
    (SONNET, {"reasoning_effort": "low"}, "must be greater than `thinking.budget_tokens`"),
    (SONNET, {}, None),  # Claude 4.5 takes the prefill
])
def test_prefill_and_thinking_rules(anthropic_server: Server, model: str, params: dict[str, Any],
                                    refused: str | None) -> None:
    emulator, base = anthropic_server
    request = group_request("A")
    litellm, _ = ensure_litellm()
    if refused is None:
        assert "7650" in ask(base, request.messages, request.tools, model=model, **params).choices[0].message.content
        return
    with pytest.raises(litellm.BadRequestError, match=refused):
        ask(base, request.messages, request.tools, model=model, **params)
    assert emulator.exchanges[-1].status == 400


def test_a_tool_call_without_its_result_is_refused(anthropic_server: Server) -> None:
    _, base = anthropic_server
    request = group_request("v1", tool_exchange=True)
    messages = [m for m in request.messages if m.get("role") != "tool"]
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="without `tool_result` blocks immediately after"):
        ask(base, messages, request.tools)


def test_the_offline_body_is_the_body_the_adapter_sends(anthropic_server: Server,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    emulator, base = anthropic_server
    monkeypatch.setenv("EMULATOR_KEY", "emulator-key-0123456789")
    request = group_request("B", tool_exchange=True)
    model_request = ModelRequest(messages=request.messages, tools=request.tools, max_output_tokens=1024,
                                 temperature=0)
    output = asyncio.run(LiteLLMModel(SONNET, api_base=base, api_key_env="EMULATOR_KEY").generate(model_request))
    offline = request_wire_body(SONNET, model_request, api_base=base)
    assert emulator.exchanges[-1].body == offline == output.provider_request
    assert offline["temperature"] == 0
    assert "emulator-key-0123456789" not in json.dumps(output.model_dump(mode="json"))
