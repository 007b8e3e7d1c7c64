"""Declared prices reach litellm as its own per-call pricing kwargs and never the wire (E-11, E-4).

Through litellm's real client against loopback servers (``harness serve-scripted`` for the OpenAI format, the
strict Anthropic and Gemini emulators, a Bedrock Converse endpoint that records and answers): the bytes each
server receives are the same with and without declared prices, while litellm's own response cost is computed
from those prices (so they did reach it). The same in a model worker: tests/harness/models/test_model_workers.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiohttp import web

from harness.models import LiteLLMModel, ModelRequest, Prices, ensure_litellm
from harness.models._pricing import litellm_pricing
from harness.scripted import get_scripted
from harness.server import ScriptedServer, ServerConfig
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator, running_app
from tests.helpers.raw_bodies import RawBodies
from tests.helpers.wire_requests import LOOKUP, group_request

DECLARED = Prices(input_per_mtok=1.25, output_per_mtok=7.5, cached_input_per_mtok=0.5)
"""Not litellm's price for any model below, so a cost litellm computes from them is theirs."""


def _bedrock_app() -> web.Application:
    """Answers Bedrock's Converse API (``POST /model/{id}/converse``) with a fixed text reply."""

    async def converse(request: web.Request) -> web.Response:
        await request.json()
        return web.json_response({
            "output": {"message": {"role": "assistant", "content": [{"text": "The budget is 7650."}]}},
            "stopReason": "end_turn", "usage": {"inputTokens": 900, "outputTokens": 7, "totalTokens": 907},
            "metrics": {"latencyMs": 1}})

    app = web.Application()
    app.router.add_post("/model/{model_id}/converse", converse)
    return app


ROUTES: dict[str, tuple[str, Callable[[], Callable[[], web.Application]], str]] = {
    "serve-scripted": ("openai/oracle", lambda: ScriptedServer(ServerConfig(), get_scripted).app.build, "/v1"),
    "anthropic": ("anthropic/claude-sonnet-4-5", lambda: AnthropicEmulator().app, ""),
    "gemini": ("gemini/gemini-2.5-flash", lambda: GeminiEmulator().app, "/v1beta"),
    "bedrock": ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", lambda: _bedrock_app, ""),
}


@pytest.fixture()
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "test-key-for-loopback")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDLOOPBACKTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "loopback-secret-for-signing-only")
    monkeypatch.setenv("AWS_REGION_NAME", "us-east-1")


@pytest.fixture()
def priced_by_litellm(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """litellm's own response cost of each call (``_hidden_params["response_cost"]``), the call itself unchanged."""
    litellm, _ = ensure_litellm()
    real = litellm.acompletion
    costs: list[Any] = []

    async def acompletion(**kwargs: Any) -> Any:
        response = await real(**kwargs)
        costs.append(response._hidden_params.get("response_cost"))
        return response

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    yield costs


def _request() -> ModelRequest:
    projected = group_request("C", text=LOOKUP)
    return ModelRequest(messages=projected.messages, tools=projected.tools, max_output_tokens=1024,
                        temperature=0, seed=7)


@pytest.mark.parametrize("route", list(ROUTES))
def test_declared_prices_price_litellms_response_and_leave_the_body_byte_identical(
        route: str, keys: None, priced_by_litellm: list[Any]) -> None:
    model, app, suffix = ROUTES[route]
    raw = RawBodies()
    outputs = []
    with running_app(raw.around(app())) as url:
        for prices in (None, DECLARED, None):
            outputs.append(asyncio.run(LiteLLMModel(model, api_base=url + suffix, prices=prices).generate(_request())))
    assert len(raw.received) == 3 and raw.received[0][1] == raw.received[1][1] == raw.received[2][1]
    body = json.loads(raw.received[1][1])
    assert not any(name in json.dumps(body) for name in ("cost_per_token", "token_cost"))
    # what the adapter captured as sent is the same text too, and its own cost is the declared prices'
    assert outputs[0].provider_request_json == outputs[1].provider_request_json
    usage = outputs[1].usage
    expected = ((usage.input_tokens - usage.cached_input_tokens) * 1.25 + usage.cached_input_tokens * 0.5
                + usage.output_tokens * 7.5) / 1e6
    assert outputs[1].usd == pytest.approx(expected) and usage.input_tokens > 0
    # litellm priced the priced call from the declared prices, not from its catalogue
    assert priced_by_litellm[1] == pytest.approx(expected)
    assert priced_by_litellm[0] != pytest.approx(expected) and priced_by_litellm[2] == priced_by_litellm[0]


def test_only_non_zero_prices_are_handed_to_litellm() -> None:
    assert litellm_pricing(None) == {}
    assert litellm_pricing(Prices(input_per_mtok=0, output_per_mtok=0, cached_input_per_mtok=0)) == {}
    assert litellm_pricing(Prices(input_per_mtok=2, output_per_mtok=0)) == {
        "input_cost_per_token": 2e-6, "output_cost_per_token": 0.0}
    assert litellm_pricing(DECLARED) == {"input_cost_per_token": 1.25e-6, "output_cost_per_token": 7.5e-6,
                                         "cache_read_input_token_cost": 0.5e-6}


def test_a_plans_own_pricing_kwarg_wins_over_the_declared_one() -> None:
    litellm, _ = ensure_litellm()
    request = _request().model_copy(update={"extra": {"input_cost_per_token": 9e-6}})
    params = LiteLLMModel("openai/oracle", api_base="http://127.0.0.1:9/v1", prices=DECLARED)._params(request, litellm)
    assert params["input_cost_per_token"] == 9e-6 and params["output_cost_per_token"] == 7.5e-6
