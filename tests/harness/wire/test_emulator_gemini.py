"""The strict Gemini generateContent emulator, reached through litellm's real client (no mock in between).

``api_base`` is ``http://127.0.0.1:PORT/v1beta``: litellm appends ``/models/<model>:generateContent``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from harness.models import ensure_litellm
from tests.helpers.emulators import PLACEHOLDER, GeminiEmulator, running_app
from tests.helpers.wire_requests import LOOKUP, group_request

PRO = "gemini/gemini-3-pro-preview"
Server = tuple[GeminiEmulator, str]


def ask(base: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], model: str = PRO,
        **params: Any) -> Any:
    litellm, _ = ensure_litellm()
    return asyncio.run(litellm.acompletion(model=model, api_base=base, api_key="test", messages=messages,
                                           tools=tools, timeout=10, num_retries=0, max_tokens=1024, **params))


def tool_loop(base: str, group: str, model: str = PRO, call_id: Any = None) -> Any:
    """Both calls of the tool_continuation stage; the call id is kept as litellm returned it unless
    ``call_id`` rewrites it."""
    request = group_request(group, text=LOOKUP)
    call = ask(base, request.messages, request.tools, model=model).choices[0].message.tool_calls[0]
    assert call.function.name == "budget_lookup"
    kept = call.id if call_id is None else call_id(call.id)
    second = group_request(group, LOOKUP, tool_exchange=True, call_id=kept, arguments=call.function.arguments)
    return ask(base, second.messages, second.tools, model=model)


def test_simple_stage_is_answered_and_thoughts_are_counted(gemini_server: Server) -> None:
    emulator, base = gemini_server
    request = group_request("C")
    response = ask(base, request.messages, request.tools)
    assert "7650" in response.choices[0].message.content
    assert response.usage.completion_tokens_details.reasoning_tokens > 0
    assert [e.status for e in emulator.exchanges] == [200]


def test_a_signed_call_carries_its_signature_in_the_id_litellm_returns(gemini_server: Server) -> None:
    _, base = gemini_server
    request = group_request("B", text=LOOKUP)
    call = ask(base, request.messages, request.tools).choices[0].message.tool_calls[0]
    signature = call.provider_specific_fields["thought_signature"]
    assert call.id.endswith("__thought__" + signature)


@pytest.mark.parametrize("group", ["B", "C", "v1"])
def test_tool_continuation_round_trip_with_the_id_kept(gemini_server: Server, group: str) -> None:
    emulator, base = gemini_server
    assert "2100" in tool_loop(base, group).choices[0].message.content
    assert emulator.rejections == []


def test_a_dropped_signature_is_refused(gemini_server: Server) -> None:
    emulator, base = gemini_server
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="missing a thought_signature"):
        tool_loop(base, "v1", call_id=lambda cid: cid.split("__thought__")[0])
    parts = emulator.exchanges[-1].body["contents"][2]["parts"]
    call = next(p for p in parts if "function_call" in p)
    assert call["thoughtSignature"] == PLACEHOLDER  # litellm's stand-in for the missing signature


def test_the_placeholder_passes_where_the_emulator_takes_it() -> None:
    emulator = GeminiEmulator(accept_placeholder=True)
    with running_app(emulator.app) as url:
        answer = tool_loop(url + "/v1beta", "v1", call_id=lambda cid: cid.split("__thought__")[0])
    assert "2100" in answer.choices[0].message.content


def test_a_forged_signature_is_refused(gemini_server: Server) -> None:
    _, base = gemini_server
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="thought_signature|thought signature"):
        tool_loop(base, "v1", call_id=lambda cid: cid.split("__thought__")[0] + "__thought__Zm9yZ2Vk")


@pytest.mark.parametrize(("model", "refused"), [
    ("gemini/gemini-3.6-flash", True), ("gemini/gemini-3.5-flash-lite", True), ("gemini/gemini-3.5-flash", False),
    (PRO, False)])
def test_a_trailing_model_turn(gemini_server: Server, model: str, refused: bool) -> None:
    emulator, base = gemini_server
    request = group_request("A")
    litellm, _ = ensure_litellm()
    if refused:
        with pytest.raises(litellm.BadRequestError, match="ending with a model turn"):
            ask(base, request.messages, request.tools, model=model)
    else:
        assert "7650" in ask(base, request.messages, request.tools, model=model).choices[0].message.content
    assert emulator.exchanges[-1].body["contents"][-1]["role"] == "model"


def test_a_function_call_without_its_response_is_refused(gemini_server: Server) -> None:
    _, base = gemini_server
    request = group_request("v1", tool_exchange=True)
    messages = json.loads(json.dumps([m for m in request.messages if m.get("role") != "tool"]))
    messages.append({"role": "user", "content": "继续"})
    litellm, _ = ensure_litellm()
    with pytest.raises(litellm.BadRequestError, match="function response turn comes immediately after"):
        ask(base, messages, request.tools, model="gemini/gemini-2.5-flash")
