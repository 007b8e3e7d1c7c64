"""Parameters a model does not take, found offline by litellm's own validation (E-11, X-20): no list of models."""

from __future__ import annotations

from typing import Any

import pytest

from harness.models import ModelRequest
from harness.plan import ModelsSpec
from harness.runner import ParamsRefused, agent_calls, refused_message
from harness.wire import refusal, unsent_params

TOOL = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}


def unsent(model: str, **sampling: Any) -> dict[str, tuple[Any, bool]]:
    request = ModelRequest(messages=[{"role": "user", "content": "?"}], tools=[TOOL], max_output_tokens=64, **sampling)
    return {u.name: (u.value, u.refused) for u in unsent_params(model, request)}


@pytest.mark.parametrize(("model", "sampling", "expected"), [
    ("openai/gpt-5", {"temperature": 0.0, "top_p": 0.9}, {"temperature": (0.0, True), "top_p": (0.9, False)}),
    ("openai/o3", {"temperature": 0.0}, {"temperature": (0.0, True)}),
    ("azure/o3", {"temperature": 0.2}, {"temperature": (0.2, True)}),
    ("openai/gpt-5.1", {"temperature": 0.0}, {}),  # gpt-5.1 takes a temperature at its default effort none
    ("openai/gpt-5", {"temperature": 1.0}, {}),
    ("openai/gpt-4o", {"temperature": 0.0, "seed": 3}, {}),
    ("openai/gpt-4o", {"temperature": 0.0, "extra": {"reasoning_effort": "low"}}, {"reasoning_effort": ("low", True)}),
    ("moonshot/kimi-k2.5", {"temperature": 0.0}, {"temperature": (0.0, False)}),  # dropped without a word
    ("anthropic/claude-sonnet-4-5", {"temperature": 0.0, "seed": 7}, {"seed": (7, False)}),
    ("mistral/mistral-large-latest", {"temperature": 0.0, "seed": 7}, {}),
])
def test_what_litellm_refuses_or_drops(model: str, sampling: dict[str, Any],
                                       expected: dict[str, tuple[Any, bool]]) -> None:
    assert unsent(model, **sampling) == expected


def test_refusal_reads_litellms_message() -> None:
    text = ("litellm could not build the openai body for openai/o3: litellm.UnsupportedParamsError: O-series models "
            "don't support temperature=0.0. Only temperature=1 is supported. To drop unsupported openai params from "
            "the call, set `litellm.drop_params = True`")
    assert refusal(text) == "O-series models don't support temperature=0.0. Only temperature=1 is supported."
    assert refusal("litellm.BadRequestError: something else") is None


def test_sampling_is_adapted_and_a_provider_parameter_refused() -> None:
    models = ModelsSpec(agent="openai/gpt-5", sampling={"temperature": 0}, reasoningEffort=None)
    calls = agent_calls("openai/gpt-5", models, 1024, maintainer="openai/gpt-5")
    assert not calls.sends("temperature") and calls.sends("seed") and calls.refused == []
    assert [u.name for u in calls.maintainer_unsent] == ["temperature"]
    refused = agent_calls("openai/gpt-4o", models.model_copy(update={"reasoningEffort": "low"}), 1024).refused
    assert [u.name for u in refused] == ["reasoning_effort"]
    message = str(ParamsRefused.of("openai/gpt-4o", refused))
    assert "reasoning_effort 'low'" in message and "openai/gpt-4o" in message and "fix: remove it" in message
    assert message == refused_message("openai/gpt-4o", refused[0])
