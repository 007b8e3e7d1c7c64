"""What each provider takes back of the model's reasoning on an assistant message (E-4; providers.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.models import Usage
from harness.models._reasoning import for_provider, taken_back

MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "q"},
    {"role": "assistant", "content": "", "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}],
     "reasoning_content": "t", "tool_calls": [{"id": "c1", "type": "function", "provider_specific_fields": {
         "thought_signature": "g"}, "function": {"name": "budget_lookup", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{}"},
]


def _kept(provider: str, model: str) -> tuple[set[str], bool]:
    message = for_provider(MESSAGES, provider, model)[1]
    return set(message) - {"role", "content", "tool_calls"}, "provider_specific_fields" in message["tool_calls"][0]


@pytest.mark.parametrize(("provider", "model", "top", "call_fields"), [
    ("anthropic", "claude-sonnet-4-5", {"thinking_blocks"}, False),
    ("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", {"thinking_blocks"}, False),
    ("vertex_ai", "claude-sonnet-4-5", {"thinking_blocks"}, False),
    ("gemini", "gemini-3-pro-preview", set(), True),
    ("deepseek", "deepseek-reasoner", {"reasoning_content"}, False),
    ("moonshot", "kimi-k2.5", {"reasoning_content"}, False),
    ("groq", "openai/gpt-oss-120b", set(), False),
    ("openai", "gpt-4o-mini", set(), False),
    ("scripted", "oracle", set(), False),
])
def test_each_provider_gets_exactly_what_it_takes(provider: str, model: str, top: set[str], call_fields: bool) -> None:
    before = copy.deepcopy(MESSAGES)
    assert _kept(provider, model) == (top, call_fields)
    assert MESSAGES == before  # the stored request is never edited
    assert taken_back(provider, model) == top | ({"provider_specific_fields"} if call_fields else set())


def test_messages_without_reasoning_are_passed_as_they_are() -> None:
    plain = [{"role": "assistant", "content": "a"}]
    assert for_provider(plain, "openai", "gpt-4o-mini")[0] is plain[0]


def test_usage_adds_reasoning_tokens() -> None:
    total = Usage(output_tokens=10, reasoning_tokens=4) + Usage(output_tokens=5, reasoning_tokens=1)
    assert (total.output_tokens, total.reasoning_tokens) == (15, 5)
