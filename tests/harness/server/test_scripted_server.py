"""The scripted-model server (X-64, Q-3, Q-22): OpenAI wire format, faults, stats, concurrency."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from harness.cli import app
from harness.models import LiteLLMModel, ModelRequest
from harness.server import ServerConfig, fetch_stats, parse_fault_kinds, parse_fault_schedule, running_server
from tests.harness.server.doubles import LOOKUP_TOOL, Registry


def _post(url: str, body: dict[str, object], timeout: float = 5) -> httpx.Response:
    return httpx.post(f"{url}/chat/completions", json=body, timeout=timeout)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "localhost", ""])
def test_q22_non_loopback_host_refused(host: str) -> None:
    with pytest.raises(ValidationError, match="127.0.0.1 only"):
        ServerConfig(host=host)


def test_q22_cli_refuses_non_loopback_host() -> None:
    result = CliRunner().invoke(app, ["serve-scripted", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "127.0.0.1 only" in result.output


def test_x64_cli_bad_fault_options_exit_2() -> None:
    result = CliRunner().invoke(app, ["serve-scripted", "--fault-schedule", "x:429"])
    assert result.exit_code == 2 and "expected N:KIND" in result.output
    result = CliRunner().invoke(app, ["serve-scripted", "--fault-rate", "1.5"])
    assert result.exit_code == 2


def test_x64_server_listens_on_loopback_only() -> None:
    with running_server(model="echo", resolve_model=Registry()) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        assert httpx.get(f"{url}/health", timeout=5).json() == {"status": "ok"}


def test_x64_chat_completion_wire_format() -> None:
    with running_server(model="echo", resolve_model=Registry()) as url:
        body = _post(url, {"model": "scripted/echo", "messages": [{"role": "user", "content": "hi"}],
                           "tools": [LOOKUP_TOOL]}).json()
        models = httpx.get(f"{url}/models", timeout=5).json()
    assert body["object"] == "chat.completion"
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["function"]["name"] == "lookup"
    assert json.loads(call["function"]["arguments"]) == {"echo": "hi"}
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0}
    assert models["data"][0]["id"] == "echo"


def test_x64_bad_request_body_is_400_not_500() -> None:
    with running_server(model="echo", resolve_model=Registry()) as url:
        assert _post(url, {"messages": "nope"}).status_code == 400
        raw = httpx.post(f"{url}/chat/completions", content=b"{", timeout=5)
        assert raw.status_code == 400 and raw.json()["error"]["type"] == "invalid_request_error"
        assert fetch_stats(url)["rejected"] == 2


def test_x64_faults_on_the_wire() -> None:
    schedule = {1: "429", 2: "500", 3: "malformed", 4: "drop"}
    with running_server(model="echo", resolve_model=Registry(), fault_schedule=schedule, retry_after_s=3) as url:
        body = {"messages": [{"role": "user", "content": "x"}]}
        r429 = _post(url, body)
        assert r429.status_code == 429 and r429.headers["Retry-After"] == "3"
        assert _post(url, body).status_code == 500
        malformed = _post(url, body)
        assert malformed.status_code == 200
        with pytest.raises(json.JSONDecodeError):
            json.loads(malformed.text)
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):  # dropped: no response at all
            _post(url, body)
        assert _post(url, body).status_code == 200
        stats = fetch_stats(url)
    assert stats["requests"] == 5 and stats["completed"] == 1
    assert stats["faults"] == {"429": 1, "500": 1, "malformed": 1, "drop": 1}


def test_x64_timeout_fault_stalls_past_client_timeout() -> None:
    with running_server(model="echo", resolve_model=Registry(), fault_schedule={1: "timeout"},
                        timeout_fault_s=5) as url:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            _post(url, {"messages": [{"role": "user", "content": "x"}]}, timeout=0.3)
        assert time.monotonic() - started < 2


def test_x64_fault_draw_is_deterministic_from_seed_and_counter() -> None:
    config = ServerConfig(fault_rate=0.3, seed=11)
    draws = [config.fault_for(n) for n in range(1, 401)]
    assert draws == [ServerConfig(fault_rate=0.3, seed=11).fault_for(n) for n in range(1, 401)]
    assert draws != [ServerConfig(fault_rate=0.3, seed=12).fault_for(n) for n in range(1, 401)]
    share = sum(d is not None for d in draws) / len(draws)
    assert 0.2 < share < 0.4
    assert {d for d in draws if d} == {"429", "500", "timeout", "drop", "malformed"}
    assert ServerConfig(fault_rate=1, fault_kinds=("500",), fault_schedule={2: "drop"}).fault_for(2) == "drop"
    assert ServerConfig().fault_for(1) is None


def test_x64_fault_option_parsing() -> None:
    assert parse_fault_schedule("3:429, 5:drop") == {3: "429", 5: "drop"}
    assert parse_fault_kinds("429,timeout") == ("429", "timeout")
    for bad in ("0:429", "3", "3:", "3:teapot"):
        with pytest.raises(ValueError):
            parse_fault_schedule(bad)


def test_x64_request_model_field_selects_scripted_model() -> None:
    registry = Registry()
    with running_server(model="echo", resolve_model=registry) as url:
        body = {"messages": [{"role": "user", "content": "x"}]}
        assert _post(url, {**body, "model": "echo"}).json()["model"] == "echo"
        assert _post(url, {**body, "model": "not-scripted"}).json()["model"] == "echo"  # falls back to --model
        assert fetch_stats(url)["models"] == {"echo": 2}


def test_x64_unknown_default_model_refused_at_start() -> None:
    with pytest.raises(KeyError), running_server(model="nope", resolve_model=Registry()):
        pass


def test_q3_concurrent_requests_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    """50 concurrent calls with 200 ms latency through the litellm adapter take about one latency."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    with running_server(model="echo", resolve_model=Registry(), latency_ms=200) as url:
        model = LiteLLMModel("openai/echo", api_base=url, max_retries=0)

        async def burst() -> float:
            request = ModelRequest(messages=[{"role": "user", "content": "x"}], timeout_seconds=10)
            await model.generate(request)  # warm the client outside the measurement
            started = time.monotonic()
            outs = await asyncio.gather(*(model.generate(request) for _ in range(50)))
            assert all(o.content == "echo: x" for o in outs)
            return time.monotonic() - started

        elapsed = asyncio.run(burst())
        stats = fetch_stats(url)
    assert stats["requests"] == 51 and stats["max_in_flight"] >= 40
    # overlap is shown by max_in_flight; the clock only rules out running one after another (10 s)
    assert elapsed < 0.2 * 50 / 2
