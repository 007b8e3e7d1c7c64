"""Scripted models through litellm's custom provider ``scripted`` (E-4): same path, same accounting."""

from __future__ import annotations

import asyncio
import json

import pytest

from harness.models import ModelRequest, Prices, ensure_litellm, make_model, scripted_resolver
from tests.harness.server.doubles import LOOKUP_TOOL, Registry


def test_e4_scripted_model_through_litellm_acompletion() -> None:
    litellm, _ = ensure_litellm()
    registry = Registry()

    async def call() -> object:
        return await litellm.acompletion(
            model="scripted/echo", messages=[{"role": "user", "content": "hello"}],
            tools=[LOOKUP_TOOL], tool_choice="auto", parallel_tool_calls=False, timeout=5, num_retries=0,
        )

    with scripted_resolver(registry):
        response = asyncio.run(call())
    message = response.choices[0].message  # type: ignore[attr-defined]
    assert message.tool_calls[0].function.name == "lookup"
    assert json.loads(message.tool_calls[0].function.arguments) == {"echo": "hello"}
    assert response.choices[0].finish_reason == "tool_calls"  # type: ignore[attr-defined]
    # usage counted by litellm.token_counter on request and reply
    expected_prompt = litellm.token_counter(messages=[{"role": "user", "content": "hello"}], tools=[LOOKUP_TOOL])
    assert response.usage.prompt_tokens == expected_prompt  # type: ignore[attr-defined]
    assert response.usage.completion_tokens > 0  # type: ignore[attr-defined]
    assert registry.echo.calls == 1


def test_e4_make_model_scripted_gives_full_output() -> None:
    with scripted_resolver(Registry()):
        model = make_model("scripted/echo", prices=Prices(input_per_mtok=0, output_per_mtok=0))
        request = ModelRequest(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
                                         {"role": "user", "content": "again"}])
        out = asyncio.run(model.generate(request))
    assert out.content == "echo: again" and out.finish_reason == "stop"
    assert out.usage.input_tokens > 0 and out.usd == 0.0 and out.price_known is True
    assert out.provider_request is not None and out.provider_request["model"] == "scripted/echo"
    assert out.provider_request["messages"][-1] == {"role": "user", "content": "again"}


def test_e4_scripted_price_unknown_without_declared_prices() -> None:
    with scripted_resolver(Registry()):
        out = asyncio.run(make_model("scripted/echo").generate(
            ModelRequest(messages=[{"role": "user", "content": "x"}])))
    assert out.usd is None and out.price_known is False


def test_e4_unknown_scripted_name_is_a_user_error() -> None:
    with scripted_resolver(Registry()), pytest.raises(ValueError, match="unknown scripted model 'nope'"):
        make_model("scripted/nope")


def test_e4_empty_model_string_is_a_user_error() -> None:
    with pytest.raises(ValueError):
        make_model("  ")


def test_models_know_no_scripted_model_until_a_caller_hands_in_a_registry() -> None:
    """The model layer imports no scripted model of its own (docs/design.md, Layout)."""
    from harness.models._scripted_call import unregistered

    with scripted_resolver(unregistered), pytest.raises(ValueError, match="no scripted models are registered"):
        make_model("scripted/oracle")
