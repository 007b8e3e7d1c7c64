"""Issue 11 at the model layer: temperature, top_p and seed reach the provider and the output says
what was sent; a scripted model that cannot read its input is an ``unsupported_input`` error,
raised at once (no retry), never a transient fault."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.models import ModelCallError, ModelRequest, Prices, make_model, scripted_resolver
from harness.models._litellm import sampling_params
from harness.scripted import UnreadableInput, get_scripted

PRICES = Prices(input_per_mtok=0, output_per_mtok=0)


class Recorder:
    """A scripted model that answers "ok"; the adapter's captured provider body shows what was sent."""

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"content": "ok", "tool_calls": []}


def test_sampling_reaches_the_provider_and_is_recorded_as_sent() -> None:
    request = ModelRequest(messages=[{"role": "user", "content": "q"}], temperature=0.7, top_p=0.9, seed=101)
    with scripted_resolver(lambda name: Recorder()):
        out = asyncio.run(make_model("scripted/rec", prices=PRICES).generate(request))
    assert out.sampling == {"temperature": 0.7, "top_p": 0.9, "seed": 101}
    assert out.provider_request is not None
    assert (out.provider_request["temperature"], out.provider_request["top_p"], out.provider_request["seed"]) == (
        0.7, 0.9, 101)


def test_unset_sampling_is_not_sent() -> None:
    with scripted_resolver(lambda name: Recorder()):
        out = asyncio.run(make_model("scripted/rec", prices=PRICES).generate(
            ModelRequest(messages=[{"role": "user", "content": "q"}], temperature=None)))
    assert out.sampling == {}
    assert out.provider_request is not None and "seed" not in out.provider_request


class _Litellm:
    """Just enough of litellm for ``sampling_params``: a provider that takes no seed."""

    @staticmethod
    def get_supported_openai_params(model: str) -> list[str]:
        return ["temperature", "top_p", "max_tokens"]


def test_a_parameter_the_provider_does_not_take_is_left_out() -> None:
    request = ModelRequest(messages=[], temperature=0.0, top_p=0.5, seed=3)
    assert sampling_params(request, _Litellm(), "someprovider/model") == {"temperature": 0.0, "top_p": 0.5}


def test_an_unreadable_input_is_unsupported_input_at_once() -> None:
    """Through litellm's custom provider (which wraps what a provider raises) and the adapter's retry loop."""
    oracle = get_scripted("scripted/oracle")
    request = ModelRequest(messages=[{"role": "user", "content": "Write a haiku about installation days."}])
    with scripted_resolver(lambda name: oracle):
        model = make_model("scripted/oracle", prices=PRICES)
        with pytest.raises(ModelCallError) as caught:
            asyncio.run(model.generate(request))
    assert caught.value.kind == "unsupported_input" and caught.value.retries == []
    assert caught.value.message.startswith("scripted/oracle cannot read its input 'Write a haiku")


def test_every_scripted_model_names_itself_when_it_cannot_read() -> None:
    messages = [{"role": "user", "content": "你好"}]
    for name in ("oracle", "stale-intent", "repeater", "chaos", "last-user-follower", "prefill-continuer"):
        with pytest.raises(UnreadableInput, match=f"^scripted/{name} cannot read its input '你好'"):
            get_scripted(name).reply(messages, [])
