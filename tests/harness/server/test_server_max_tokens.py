"""The scripted server stops replies at ``max_tokens`` like a real provider (X-64, X-21): the
truncated tail is gone, ``finish_reason`` is ``length`` and ``completion_tokens <= max_tokens``."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from harness.models import LiteLLMModel, ModelRequest
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
