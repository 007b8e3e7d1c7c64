"""The OpenAI-format emulators are strict: each refuses what its provider documents refusing, with the
provider's own message, through litellm's real client as the harness calls it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.models import LiteLLMModel, ModelCallError, ModelRequest
from tests.helpers.emulators import deepseek_emulator, mistral_emulator, openai_emulator, running_app
from tests.helpers.emulators._anthropic import Rejected
from tests.helpers.emulators._chat import deepseek, mistral, openai_reasoning

USER = {"role": "user", "content": "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"}
CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "budget_lookup", "arguments": "{}"}}]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "{}"}


@pytest.mark.parametrize(("validate", "body", "message"), [
    (mistral, {"model": "m", "messages": [USER, {"role": "assistant", "content": "[context_state] …"}]},
     "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"),
    (mistral, {"model": "m", "messages": [USER, {**CALL, "tool_calls": [{**CALL["tool_calls"][0], "id": "abcdefghi"}]},
                                          {**RESULT, "tool_call_id": "abcdefghi"}, USER]},
     "Unexpected role 'user' after role 'tool'"),
    (mistral, {"model": "m", "messages": [USER, CALL, RESULT]},
     "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9."),
    (openai_reasoning, {"model": "gpt-5", "messages": [USER], "temperature": 0},
     "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."),
    (openai_reasoning, {"model": "o3", "messages": [USER], "top_p": 0.9},
     "Unsupported parameter: 'top_p' is not supported with this model."),
    (openai_reasoning, {"model": "gpt-4o", "messages": [USER], "reasoning_effort": "low"},
     "Unrecognized request argument supplied: reasoning_effort"),
    (deepseek, {"model": "deepseek-reasoner", "messages": [USER, CALL, RESULT]},
     "The reasoning_content in the thinking mode must be passed back to the API."),
])
def test_each_validator_refuses_with_the_providers_message(validate: Any, body: dict[str, Any], message: str) -> None:
    with pytest.raises(Rejected) as caught:
        validate(body)
    assert caught.value.message == message and caught.value.status == 400


def test_a_refusal_reaches_the_harness_through_litellm_as_provider_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMULATOR_API_KEY", "emulator-key-not-secret-0123")
    for make, model, messages in ((mistral_emulator, "mistral/mistral-large-latest", [USER, CALL, RESULT]),
                                  (deepseek_emulator, "deepseek/deepseek-reasoner", [USER, CALL, RESULT]),
                                  (openai_emulator, "openai/o4-emulated", [USER])):  # a name litellm's o-series
        # check does not know, so the temperature reaches the emulator, which refuses it as OpenAI does
        emulator = make()
        with running_app(emulator.app) as url:
            adapter = LiteLLMModel(model, api_base=url + "/v1", api_key_env="EMULATOR_API_KEY", max_retries=2)
            request = ModelRequest(messages=messages, max_output_tokens=64, timeout_seconds=10, temperature=0.0)
            with pytest.raises(ModelCallError) as caught:
                asyncio.run(adapter.generate(request))
        assert caught.value.kind == "provider_rejected", caught.value
        assert len(emulator.rejections) == 1  # refused once: a deterministic 4xx is never retried
