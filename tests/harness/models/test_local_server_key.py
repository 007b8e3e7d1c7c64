"""A local OpenAI-compatible server without an API key in the environment (E-4, E-7, O-30).

litellm refuses ``openai/...`` without a key ("Missing credentials") even when ``api_base`` is a
local server that takes none; for a loopback ``api_base`` the adapter passes a placeholder key,
which is redacted like a real one. Over real HTTP to the scripted server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from harness.models import PLACEHOLDER_KEY, LiteLLMModel, ModelRequest, ensure_litellm, is_loopback
from harness.models._local import needs_placeholder_key
from harness.models._retry import classify
from harness.server import fetch_stats, running_server
from tests.harness.server.doubles import Registry

REQUEST = ModelRequest(messages=[{"role": "user", "content": "budget?"}], timeout_seconds=5, max_output_tokens=16)


@pytest.fixture()
def server() -> Iterator[str]:
    with running_server(model="echo", resolve_model=Registry()) as url:
        yield url


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/v1", "http://127.3.4.5/v1", "http://localhost:11434", "http://[::1]:8000/v1",
    "127.0.0.1:8080/v1", "http://api.localhost/v1",
])
def test_e4_loopback_addresses(url: str) -> None:
    assert is_loopback(url)


@pytest.mark.parametrize("url", [
    None, "", "https://api.openai.com/v1", "http://10.0.0.5:8080/v1", "http://192.168.1.2/v1",
    "http://localhost.example.com/v1", "http://[::2]/v1", "http://[bad/v1",
])
def test_e4_other_addresses_are_not_loopback(url: str | None) -> None:
    assert not is_loopback(url)


def test_e4_placeholder_only_for_loopback_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    litellm, _ = ensure_litellm()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert needs_placeholder_key("openai/qwen", "http://127.0.0.1:8080/v1", litellm)
    assert not needs_placeholder_key("openai/qwen", "https://api.example.com/v1", litellm)
    assert not needs_placeholder_key("openai/qwen", None, litellm)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-set-key-0123456789")
    assert not needs_placeholder_key("openai/qwen", "http://127.0.0.1:8080/v1", litellm)
    monkeypatch.delenv("OPENAI_API_KEY")  # the answer kept follows the environment back
    assert needs_placeholder_key("openai/qwen", "http://127.0.0.1:8080/v1", litellm)


def test_e4_local_server_works_without_openai_key(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = asyncio.run(LiteLLMModel("openai/echo", api_base=server, max_retries=0).generate(REQUEST))
    assert out.content == "echo: budget?"
    assert out.usage.input_tokens > 0 and out.retries == []
    assert fetch_stats(server)["requests"] == 1
    written = json.dumps([out.provider_request, out.raw_response])  # O-30: redacted like a real key
    assert PLACEHOLDER_KEY not in written



def test_e7_missing_key_is_not_retried() -> None:
    """litellm wraps "Missing credentials" as a 500; it is a set-up problem, ended at once (E-7)."""
    litellm, _ = ensure_litellm()
    exc = litellm.exceptions.InternalServerError(
        message="OpenAIException - Missing credentials. Please pass an `api_key`, or set the `OPENAI_API_KEY` "
                "environment variable.", llm_provider="openai", model="openai/qwen")
    assert classify(exc, litellm).decision == "infrastructure"
    other = litellm.exceptions.InternalServerError(message="upstream exploded", llm_provider="openai", model="m")
    assert classify(other, litellm).decision == "retry"
