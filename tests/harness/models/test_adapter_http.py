"""The litellm adapter over real HTTP against the scripted server (E-4, E-5, E-7, E-11, X-64).

Every call goes ``openai/echo`` + ``api_base`` through litellm's OpenAI provider; no real provider.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from harness.models import LiteLLMModel, ModelCallError, ModelOutput, ModelRequest, Prices, infra_kind
from harness.server import fetch_stats, running_server
from tests.harness.server.doubles import LOOKUP_TOOL, Registry

PLANTED = "sk-PLANTED-3f9c2a7b1d0e4f6a8b5c"


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)


@pytest.fixture()
def server() -> Iterator[str]:
    with running_server(model="echo", resolve_model=Registry()) as url:
        yield url


def _model(url: str, **kwargs: object) -> LiteLLMModel:
    settings: dict[str, object] = {"max_retries": 3, "backoff_base_s": 0.01, "max_backoff_s": 0.05, **kwargs}
    return LiteLLMModel("openai/echo", api_base=url, **settings)  # type: ignore[arg-type]


def _ask(model: LiteLLMModel, text: str = "budget?", tools: bool = False, timeout: float = 5) -> ModelOutput:
    request = ModelRequest(
        messages=[{"role": "user", "content": text}],
        tools=[LOOKUP_TOOL] if tools else [],
        timeout_seconds=timeout,
        max_output_tokens=64,
        temperature=0,
    )
    return asyncio.run(model.generate(request))


def test_e4_text_reply_and_usage_over_http(server: str) -> None:
    out = _ask(_model(server), "what is the budget?")
    assert out.content == "echo: what is the budget?"
    assert out.tool_calls == [] and out.finish_reason == "stop"
    assert out.usage.input_tokens > 0 and out.usage.output_tokens > 0 and out.usage.cached_input_tokens == 0
    assert out.retries == [] and out.latency_ms > 0
    assert fetch_stats(server)["requests"] == 1


def test_e5_tool_call_parsed_and_single_call_requested(server: str) -> None:
    out = _ask(_model(server), "ACME", tools=True)
    assert out.finish_reason == "tool_calls"
    assert len(out.tool_calls) == 1
    call = out.tool_calls[0]
    assert call.name == "lookup" and json.loads(call.arguments) == {"echo": "ACME"}
    body = out.provider_request
    assert body is not None  # E-11: the provider-level body, as sent
    assert body["parallel_tool_calls"] is False and body["tool_choice"] == "auto"
    assert body["tools"][0]["function"]["name"] == "lookup"
    assert body["messages"] == [{"role": "user", "content": "ACME"}]


def test_e4_no_tools_means_no_tool_params(server: str) -> None:
    body = _ask(_model(server)).provider_request
    assert body is not None
    assert "tools" not in body and "tool_choice" not in body and "parallel_tool_calls" not in body


def test_e11_declared_prices_override(server: str) -> None:
    prices = Prices(input_per_mtok=2.0, output_per_mtok=8.0)
    out = _ask(_model(server, prices=prices))
    expected = (out.usage.input_tokens * 2.0 + out.usage.output_tokens * 8.0) / 1_000_000
    assert out.price_known is True and out.usd == pytest.approx(expected)


def test_e11_unknown_price_is_none_not_zero(server: str) -> None:
    out = _ask(_model(server))
    assert out.usd is None and out.price_known is False


@pytest.mark.parametrize(
    ("fault", "error_class", "kind"),
    [("429", "RateLimitError", "rate_limit"), ("500", "InternalServerError", "server_error"),
     ("timeout", "Timeout", "timeout"), ("drop", "InternalServerError", "connection"),
     ("malformed", "InternalServerError", "malformed")],
)
def test_e7_injected_fault_is_retried_and_recorded(fault: str, error_class: str, kind: str) -> None:
    with running_server(model="echo", resolve_model=Registry(), fault_schedule={1: fault},
                        retry_after_s=0, timeout_fault_s=5) as url:
        out = _ask(_model(url), "after a fault", timeout=0.5)
        stats = fetch_stats(url)
    assert out.content == "echo: after a fault"
    assert [(r.attempt, r.error_class) for r in out.retries] == [(1, error_class)]
    # litellm folds a dropped connection and an unparseable body into InternalServerError 500: the kind
    # the reports show tells them apart from what was recorded (issue 13)
    assert [infra_kind(r.error_class, r.status_code, r.message) for r in out.retries] == [kind]
    assert stats["requests"] == 2 and stats["faults"] == {fault: 1}  # no hidden extra calls


def test_e7_retry_after_is_honoured() -> None:
    with running_server(model="echo", resolve_model=Registry(), fault_schedule={1: "429"}, retry_after_s=1) as url:
        out = _ask(_model(url))
    (record,) = out.retries
    assert record.status_code == 429 and record.waited_ms >= 1000


def test_e7_persistent_failure_is_infrastructure() -> None:
    schedule = {n: "500" for n in range(1, 10)}
    with running_server(model="echo", resolve_model=Registry(), fault_schedule=schedule) as url:
        with pytest.raises(ModelCallError) as info:
            _ask(_model(url, max_retries=2))
        stats = fetch_stats(url)
    err = info.value
    assert err.kind == "infrastructure" and err.status_code == 500
    assert [r.attempt for r in err.retries] == [1, 2, 3]
    assert stats["requests"] == 3  # 1 + max_retries, nothing more


def test_e7_provider_rejection_is_not_retried() -> None:
    """A 400 such as 'must end with a user message' is provider_rejected (placement A on 4.6+)."""
    with running_server(model="echo", resolve_model=Registry(), reject_trailing_assistant=True) as url:
        request = ModelRequest(messages=[
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "[context_state]\n{}"},
        ])
        with pytest.raises(ModelCallError) as info:
            asyncio.run(_model(url).generate(request))
        stats = fetch_stats(url)
    assert info.value.kind == "provider_rejected" and info.value.status_code == 400
    assert "must end with a user message" in info.value.message
    assert stats["requests"] == 1


def test_e7_context_window_exceeded_is_its_own_kind() -> None:
    with running_server(model="echo", resolve_model=Registry(), context_window_tokens=5) as url:
        with pytest.raises(ModelCallError) as info:
            _ask(_model(url), "a question long enough to exceed a five token window")
    assert info.value.kind == "context_window"


def test_o30_planted_key_never_in_output(server: str) -> None:
    out = _ask(_model(server), tools=True)
    dumped = out.model_dump_json()
    assert PLANTED not in dumped and "PLANTED" not in dumped
    assert out.provider_request is not None and PLANTED not in json.dumps(out.provider_request)


def test_o30_key_from_api_key_env_is_sent_but_not_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_TEST_LOCAL_KEY", "local-PLANTED-77aa88bb99cc")
    schedule = {1: "500"}
    with running_server(model="echo", resolve_model=Registry(), fault_schedule=schedule) as url:
        out = _ask(_model(url, api_key_env="HARNESS_TEST_LOCAL_KEY"))
    assert "PLANTED" not in out.model_dump_json()


def test_e7_missing_key_env_is_infrastructure(server: str) -> None:
    with pytest.raises(ModelCallError) as info:
        _ask(_model(server, api_key_env="HARNESS_TEST_NO_SUCH_KEY"))
    assert info.value.kind == "infrastructure" and "HARNESS_TEST_NO_SUCH_KEY" in info.value.message
