"""Provider bodies built offline by litellm's own transformation (E-11), never with a key in them."""

from __future__ import annotations

import json

import pytest

from harness.models import ModelRequest
from harness.wire import WireBuildError, build_wire_body, request_wire_body
from tests.helpers.wire_requests import group_request

PLANTED = {
    "ANTHROPIC_API_KEY": "sk-ant-PLANTED-7c1e9a2b4d6f8a0b",
    "GEMINI_API_KEY": "AIzaPLANTEDgeminikey0123456789abcdefXYZ",
    "AWS_ACCESS_KEY_ID": "AKIAPLANTED000000001",
    "AWS_SECRET_ACCESS_KEY": "planted-aws-secret-0123456789abcdef",
    "OPENAI_API_KEY": "sk-PLANTED-openai-0123456789abcdef",
    "DEEPSEEK_API_KEY": "sk-PLANTED-deepseek-0123456789ab",
}
MODELS = [
    "anthropic/claude-sonnet-4-5",
    "gemini/gemini-3-pro-preview",
    "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "openai/gpt-4o-mini",
    "deepseek/deepseek-chat",
]


@pytest.fixture(autouse=True)
def planted_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize("model", MODELS)
def test_body_is_built_offline_and_carries_no_key(model: str) -> None:
    request = group_request("C", tool_exchange=True)
    body = build_wire_body(model, request.messages, request.tools, max_output_tokens=1024)
    text = json.dumps(body)
    for secret in [*PLANTED.values(), "my-fake-api-key", "wire-body-dummy-secret-not-a-key", "AKIAWIREBODYDUMMY0000"]:
        assert secret not in text
    assert "budget_lookup" in text and "[context_state]" in text  # the request's own content is there


def test_each_provider_gets_its_own_shape() -> None:
    request = group_request("A")
    anthropic = build_wire_body("anthropic/claude-sonnet-4-5", request.messages, request.tools)
    gemini = build_wire_body("gemini/gemini-3-pro-preview", request.messages, request.tools)
    bedrock = build_wire_body("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", request.messages, request.tools)
    openai = build_wire_body("openai/gpt-4o-mini", request.messages, request.tools)
    assert anthropic["system"][0]["type"] == "text" and anthropic["messages"][0]["role"] == "assistant"
    assert anthropic["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}  # the adapter's E-5
    assert gemini["contents"][0]["role"] == "model" and "system_instruction" in gemini
    assert bedrock["messages"][0]["role"] == "assistant" and "toolConfig" in bedrock
    assert openai["messages"] == request.messages  # OpenAI chat: the harness's messages as they are


def test_extra_reaches_the_transformation() -> None:
    request = group_request("C")
    body = build_wire_body("anthropic/claude-sonnet-4-5", request.messages, request.tools,
                           extra={"reasoning_effort": "low"}, max_output_tokens=1024)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_credentials_in_extra_are_refused() -> None:
    request = group_request("C")
    with pytest.raises(ValueError, match="credentials"):
        build_wire_body("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", request.messages,
                        extra={"aws_secret_access_key": "x"})
    with pytest.raises(ValueError, match="adapter-owned"):
        build_wire_body("anthropic/claude-sonnet-4-5", request.messages, extra={"api_key": "x"})
    with pytest.raises(ValueError, match="adapter-owned"):
        build_wire_body("anthropic/claude-sonnet-4-5", request.messages, extra={"modify_params": True})


def test_a_model_litellm_cannot_place_is_an_error_without_key() -> None:
    request = group_request("C")
    with pytest.raises(WireBuildError) as info:
        build_wire_body("scripted/oracle", request.messages)
    assert "scripted/oracle" in str(info.value)
    assert not any(secret in str(info.value) for secret in PLANTED.values())


def test_a_sampling_parameter_litellm_refuses_is_found_before_any_call() -> None:
    request = group_request("C")
    sampled = ModelRequest(messages=request.messages, tools=request.tools, temperature=0, max_output_tokens=1024)
    with pytest.raises(WireBuildError, match="temperature"):
        request_wire_body("gemini/gemini-3.6-flash", sampled)
    assert request_wire_body("gemini/gemini-3-pro-preview", sampled)["generationConfig"]["temperature"] == 0
