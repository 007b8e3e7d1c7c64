"""The scripted server stops replies at ``max_tokens`` like a real provider (X-64, X-21): the
truncated tail is gone, ``finish_reason`` is ``length`` and ``completion_tokens <= max_tokens``."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from harness.models import LiteLLMModel, ModelRequest
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.models.test_scripted_max_tokens import LONG, LONG_ARGS, _resolve

FOLD_TOOL = {"type": "function", "function": {"name": "context_fold_create", "parameters": {"type": "object"}}}


def _chat(url: str, **body: Any) -> httpx.Response:
    payload = {"model": "verbose", "messages": [{"role": "user", "content": "q"}], **body}
    return httpx.post(f"{url}/chat/completions", json=payload, timeout=10)


def test_x64_x21_server_cuts_content_at_max_tokens() -> None:
    with running_server(model="verbose", resolve_model=_resolve) as url:
        capped = _chat(url, max_tokens=120).json()
        newer_name = _chat(url, max_completion_tokens=50).json()
        uncapped = _chat(url).json()
    choice = capped["choices"][0]
    assert choice["finish_reason"] == "length"
    assert LONG.startswith(choice["message"]["content"]) and choice["message"]["content"] != LONG
    assert 0 < capped["usage"]["completion_tokens"] <= 120
    assert newer_name["usage"]["completion_tokens"] <= 50
    assert newer_name["choices"][0]["finish_reason"] == "length"
    assert uncapped["choices"][0]["finish_reason"] == "stop" and uncapped["usage"]["completion_tokens"] > 1024


def test_x64_x21_server_cuts_tool_call_arguments_over_http_through_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    with running_server(model="verbose", resolve_model=_resolve) as url:
        model = LiteLLMModel("openai/verbose", api_base=url, max_retries=0)
        request = ModelRequest(messages=[{"role": "user", "content": "q"}], tools=[FOLD_TOOL],
                               max_output_tokens=256)
        out = asyncio.run(model.generate(request))
    assert out.finish_reason == "length" and out.usage.output_tokens <= 256
    (call,) = out.tool_calls
    assert LONG_ARGS.startswith(call.arguments) and len(call.arguments) < len(LONG_ARGS)


@pytest.mark.parametrize("bad", [0, -5, "100", 1.5, True])
def test_x64_bad_max_tokens_is_a_400_not_a_crash(bad: object) -> None:
    with running_server(model="verbose", resolve_model=_resolve) as url:
        response = _chat(url, max_tokens=bad)
    assert response.status_code == 400
    assert "max_tokens" in response.json()["error"]["message"]


def test_usage_scale_reports_more_tokens_but_never_past_max_tokens() -> None:
    """Issue 12: `--usage-scale 2` plays a model whose tokenizer counts twice litellm's estimate."""
    question = {"messages": [{"role": "user", "content": "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"}]}
    with running_server(resolve_model=get_scripted, model="oracle") as plain_url:
        plain = _chat(plain_url, model="oracle", max_tokens=1000, **question).json()["usage"]
    with running_server(resolve_model=get_scripted, model="oracle", usage_scale=2.0) as url:
        scaled = _chat(url, model="oracle", max_tokens=1000, **question).json()["usage"]
    with running_server(model="verbose", resolve_model=_resolve, usage_scale=2.0) as url:
        capped = _chat(url, max_tokens=120).json()["usage"]
    assert scaled["prompt_tokens"] == 2 * plain["prompt_tokens"]
    assert scaled["completion_tokens"] == 2 * plain["completion_tokens"] > 0
    assert scaled["total_tokens"] == scaled["prompt_tokens"] + scaled["completion_tokens"]
    assert capped["completion_tokens"] == 120  # a server stops at max_tokens in its own count


def test_context_fault_answers_like_llama_cpp() -> None:
    with running_server(model="verbose", resolve_model=_resolve, fault_rate=1.0, fault_kinds=("context",)) as url:
        response = _chat(url)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "exceed_context_size_error" and error["n_prompt_tokens"] > error["n_ctx"] > 0
    assert "exceeds the available context size" in error["message"]
