"""Counted once, counted the same (Q-2, X-21, X-51): the cached per-message counts add up to exactly
litellm's ``token_counter`` of the whole request, for every tokenizer family the harness meets."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models import message_tokens, prompt_tokens, tools_tokens
from harness.models._tokens import request_tokens

MODELS = ["", "gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash", "openai/qwen",
          "ollama_chat/llama3", "hosted_vllm/Qwen/Qwen2.5-0.5B-Instruct"]
TOOLS = [{"type": "function", "function": {"name": f"tool_{i}", "description": "Looks things up. " * (i + 1),
                                           "parameters": {"type": "object", "properties": {
                                               "id": {"type": "string", "enum": ["a", "b"]},
                                               "amount": {"type": "number", "description": "in CNY"}},
                                                          "required": ["id"]}}}
         for i in range(3)]
_TEXT = st.text(alphabet=st.sampled_from(list("ab 项目\n\"{}:,é1")), max_size=40)
_CALL = st.builds(lambda i, args: {"id": f"call_{i}", "type": "function",
                                   "function": {"name": "tool_0", "arguments": args}}, st.integers(0, 9), _TEXT)
_MESSAGE = st.one_of(
    st.builds(lambda role, text: {"role": role, "content": text}, st.sampled_from(["system", "user", "assistant"]),
              _TEXT),
    st.builds(lambda calls: {"role": "assistant", "content": "", "tool_calls": calls}, st.lists(_CALL, max_size=2)),
    st.builds(lambda i, text: {"role": "tool", "tool_call_id": f"call_{i}", "content": text}, st.integers(0, 9),
              _TEXT),
    st.builds(lambda text, name: {"role": "user", "content": text, "name": name}, _TEXT, st.sampled_from(["ana"])),
)


@settings(max_examples=60, deadline=None)
@given(messages=st.lists(_MESSAGE, max_size=6), tools=st.sampled_from([None, [], TOOLS[:1], TOOLS]),
       model=st.sampled_from(MODELS))
def test_q2_cached_counts_equal_the_whole_request_count(messages: list[dict[str, Any]],
                                                        tools: list[dict[str, Any]] | None, model: str) -> None:
    assert prompt_tokens(model, messages, tools) == request_tokens(model, messages, tools)
    assert prompt_tokens(model, messages, tools) == request_tokens(model, messages, tools)  # from the cache too
    if tools:  # the tools' JSON given (the engine's one encoding a step): the same counts
        given_json = json.dumps(tools, ensure_ascii=False)
        assert prompt_tokens(model, messages, tools, given_json) == request_tokens(model, messages, tools)
        assert tools_tokens(model, tools, given_json) == tools_tokens(model, tools)


def test_x51_one_message_and_the_tools_count_as_requests_of_their_own() -> None:
    message = {"role": "user", "content": "项目预算 12000 元"}
    for model in MODELS:
        assert message_tokens(model, message) == request_tokens(model, [message])
        assert tools_tokens(model, TOOLS) == request_tokens(model, [], json.loads(json.dumps(TOOLS, sort_keys=True)))
        assert tools_tokens(model, []) == 0
