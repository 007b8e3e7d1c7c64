"""Model-interface values (E-4, E-11): usage adds, requests refuse adapter-owned extras, prices."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.models import (
    ModelCallError,
    ModelRequest,
    Prices,
    RetryRecord,
    Usage,
    model_capacity,
    supports_assistant_prefill,
)


def test_e11_usage_adds() -> None:
    total = Usage(input_tokens=10, cached_input_tokens=4, output_tokens=2) + Usage(input_tokens=5, output_tokens=1)
    assert total == Usage(input_tokens=15, cached_input_tokens=4, output_tokens=3)
    assert total.total_tokens == 18
    assert sum([Usage(input_tokens=1), Usage(input_tokens=2)], Usage()).input_tokens == 3


def test_e4_request_refuses_adapter_owned_extras() -> None:
    with pytest.raises(ValidationError, match="modify_params"):
        ModelRequest(messages=[{"role": "user", "content": "x"}], extra={"modify_params": True})
    with pytest.raises(ValidationError, match="api_key"):
        ModelRequest(messages=[], extra={"api_key": "k"})
    with pytest.raises(ValidationError, match="seed"):  # sampling is the request's own: top_p and seed too
        ModelRequest(messages=[], extra={"seed": 7})
    assert ModelRequest(messages=[], extra={"presence_penalty": 0.5}).extra == {"presence_penalty": 0.5}
    request = ModelRequest(messages=[], temperature=0.7, top_p=0.9, seed=7)
    assert (request.temperature, request.top_p, request.seed) == (0.7, 0.9, 7)


def test_e11_prices_cached_tokens_at_their_own_rate() -> None:
    usage = Usage(input_tokens=1_000_000, cached_input_tokens=400_000, output_tokens=100_000)
    prices = Prices(input_per_mtok=3.0, cached_input_per_mtok=0.3, output_per_mtok=15.0)
    assert prices.cost(usage) == pytest.approx(0.6 * 3.0 + 0.4 * 0.3 + 0.1 * 15.0)
    assert Prices(input_per_mtok=1, output_per_mtok=1).cost(usage) == pytest.approx(1.1)


def test_e7_model_call_error_carries_kind_and_retries() -> None:
    err = ModelCallError("infrastructure", "gave up", 503, [RetryRecord(attempt=1, error_class="X")])
    assert err.kind == "infrastructure" and err.to_dict()["retries"] == [
        {"attempt": 1, "error_class": "X", "status_code": None, "waited_ms": 0.0, "message": ""}
    ]


def test_capacity_and_prefill_known_and_unknown() -> None:
    """Placement preflight helpers: known models answer from the offline catalogue, others None."""
    assert model_capacity("gpt-4o") == 128000
    assert model_capacity("openai/some-local-model") is None
    assert supports_assistant_prefill("openai/some-local-model") is None
    assert supports_assistant_prefill("scripted/echo") is None
    assert supports_assistant_prefill("claude-sonnet-4-5") is True  # litellm 1.110.2's catalogue


def test_e11_cached_tokens_from_openai_and_anthropic_usage() -> None:
    from harness.models import ensure_litellm
    from harness.models._litellm import usage_of

    litellm, _ = ensure_litellm()
    choices = [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]
    openai_style = litellm.ModelResponse(choices=choices, usage={
        "prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105,
        "prompt_tokens_details": {"cached_tokens": 60}})
    assert usage_of(openai_style) == Usage(input_tokens=100, cached_input_tokens=60, output_tokens=5)
    anthropic_style = litellm.ModelResponse(choices=choices, usage=litellm.Usage(
        prompt_tokens=100, completion_tokens=5, total_tokens=105, cache_read_input_tokens=70))
    assert usage_of(anthropic_style).cached_input_tokens == 70


def test_e11_cost_from_litellm_map_when_no_declared_price() -> None:
    from harness.models import ensure_litellm
    from harness.models._pricing import price_call

    litellm, _ = ensure_litellm()
    usage = Usage(input_tokens=1000, output_tokens=100)
    usd, known = price_call("gpt-4o", usage, None, litellm)
    expected = sum(litellm.cost_per_token(model="gpt-4o", prompt_tokens=1000, completion_tokens=100))
    assert known is True and usd == pytest.approx(expected) and usd > 0
    assert price_call("openai/my-local-model", usage, None, litellm) == (None, False)
