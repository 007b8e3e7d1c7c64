"""A chat template's refusal is deterministic (E-7, P-80): never retried, whatever status the server gives it.

Through litellm's real client against the llama.cpp emulator with Gemma 2's template, which raises
"Conversation roles must alternate user/assistant/user/assistant/..." for a list that starts with an
assistant message: llama.cpp answers HTTP 500 (``Jinja Exception: …``), a newer server 400 (its automatic
parser wraps the error). Either way one attempt, classified ``provider_rejected``, kind ``rejected``.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.models import LiteLLMModel, ModelCallError, ModelRequest, infra_kind, is_template_refusal
from tests.helpers.emulators import GEMMA, LlamaCppEmulator, running_app

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "assistant", "content": "[context_header]\n{}"},
            {"role": "user", "content": "还剩多少预算？"}]


@pytest.mark.parametrize("status", [500, 400])
def test_a_template_refusal_is_one_attempt(status: int) -> None:
    emulator = LlamaCppEmulator(template=GEMMA, template_error_status=status)
    with running_app(emulator.app) as url:
        model = LiteLLMModel("openai/gemma", api_base=url + "/v1", max_retries=3, backoff_base_s=0.01,
                             max_backoff_s=0.02)
        request = ModelRequest(messages=MESSAGES, max_output_tokens=32, temperature=0, timeout_seconds=10)
        with pytest.raises(ModelCallError) as caught:
            asyncio.run(model.generate(request))
    error = caught.value
    assert error.kind == "provider_rejected" and error.status_code == status
    assert "Conversation roles must alternate user/assistant/user/assistant/..." in error.message
    assert len(emulator.exchanges) == 1 and emulator.counts["/v1/chat/completions"] == 1  # no retry
    [attempt] = error.retries
    assert infra_kind(attempt.error_class, attempt.status_code, attempt.message) == "rejected"


@pytest.mark.parametrize("text", [
    "litellm.InternalServerError: OpenAIException - Jinja Exception: Conversation roles must alternate user/assistant",
    "Unable to generate parser for this template. Automatic parser generation failed: Jinja Exception: System role "
    "not supported",
    "jinja2.exceptions.TemplateError: Only user and assistant roles are supported!",
    "this custom template is not supported, try using --jinja",
])
def test_template_errors_are_told_by_their_words(text: str) -> None:
    assert is_template_refusal(text)
    assert infra_kind("InternalServerError", 500, text) == "rejected"


@pytest.mark.parametrize("text", ["Internal Server Error", "upstream connect error", "model is loading"])
def test_other_server_errors_stay_server_errors(text: str) -> None:
    assert not is_template_refusal(text)
    assert infra_kind("InternalServerError", 500, text) == "server_error"
