"""Scripted replies stop at ``max_tokens`` like a real provider's (E-4), so the runner's worst-case
reservation of the per-call output cap holds (X-21): truncated tail, ``finish_reason: "length"``,
``completion_tokens <= max_tokens``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models import ModelRequest, Prices, ensure_litellm, make_model, scripted_resolver
from harness.models._scripted_call import cap_reply, completion_tokens
from harness.models._types import ToolCallOut

LONG = "报价核对：三台 X200，每台 2000 元，安装费 300 元。" * 80  # ~2,000 tokens
LONG_ARGS = json.dumps({"purpose": "折叠", "summary": LONG}, ensure_ascii=False)


class Verbose:
    """Answers with ``LONG`` in text, or as the arguments of a call to the first tool offered."""

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        if tools:
            name = tools[0]["function"]["name"]
            return {"content": None, "tool_calls": [{"id": "call_1", "name": name, "arguments": LONG_ARGS}]}
        return {"content": LONG, "tool_calls": []}


def _resolve(name: str) -> Verbose:
    if name != "verbose":
        raise KeyError(name)
    return Verbose()


def test_e4_x21_reply_within_cap_is_untouched() -> None:
    call = ToolCallOut(id="c", name="lookup", arguments='{"q": 1}')
    assert cap_reply("short", [call], 1024) == ("short", [call], False)
    assert cap_reply(LONG, [], None) == (LONG, [], False)


def test_e4_x21_long_content_is_cut_to_the_cap_as_a_prefix() -> None:
    assert completion_tokens(LONG, []) > 1024
    content, calls, truncated = cap_reply(LONG, [], 100)
    assert truncated and calls == [] and content is not None
    assert LONG.startswith(content) and 90 <= completion_tokens(content, []) <= 100
    assert "\ufffd" not in content  # never half a character at the cut


def test_e4_x21_long_tool_arguments_are_cut_and_become_invalid_json() -> None:
    call = ToolCallOut(id="c", name="context_fold_create", arguments=LONG_ARGS)
    content, calls, truncated = cap_reply(None, [call], 64)
    assert truncated and content is None
    (cut,) = calls
    assert cut.name == call.name and cut.id == call.id and LONG_ARGS.startswith(cut.arguments)
    assert completion_tokens(None, calls) <= 64
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.arguments)


def test_e4_x21_calls_after_content_that_fills_the_cap_are_dropped() -> None:
    call = ToolCallOut(id="c", name="lookup", arguments="{}")
    content, calls, truncated = cap_reply(LONG, [call], 50)
    assert truncated and calls == [] and completion_tokens(content, []) <= 50


@settings(max_examples=40, deadline=None)
@given(text=st.text(min_size=1, max_size=300), args=st.text(max_size=300), cap=st.integers(1, 80))
def test_e4_x21_capped_reply_never_exceeds_cap_property(text: str, args: str, cap: int) -> None:
    ensure_litellm()
    call = ToolCallOut(id="c", name="lookup", arguments=args)
    content, calls, truncated = cap_reply(text, [call], cap)
    assert completion_tokens(content, calls) <= cap
    assert text.startswith(content or "")
    assert truncated == (completion_tokens(text, [call]) > cap)


def test_e4_x21_litellm_path_reports_length_and_capped_usage() -> None:
    with scripted_resolver(_resolve):
        model = make_model("scripted/verbose", prices=Prices(input_per_mtok=1, output_per_mtok=1))
        out = asyncio.run(model.generate(ModelRequest(messages=[{"role": "user", "content": "q"}],
                                                      max_output_tokens=200)))
        uncapped = asyncio.run(model.generate(ModelRequest(messages=[{"role": "user", "content": "q"}])))
    assert out.finish_reason == "length" and 0 < out.usage.output_tokens <= 200
    assert out.content is not None and LONG.startswith(out.content)
    assert out.provider_request is not None and out.provider_request["max_tokens"] == 200
    assert uncapped.finish_reason == "stop" and uncapped.content == LONG and uncapped.usage.output_tokens > 1024


def test_e4_x21_litellm_path_cuts_tool_call_arguments() -> None:
    tool = {"type": "function", "function": {"name": "context_fold_create", "parameters": {"type": "object"}}}
    with scripted_resolver(_resolve):
        model = make_model("scripted/verbose", prices=Prices(input_per_mtok=1, output_per_mtok=1))
        out = asyncio.run(model.generate(ModelRequest(messages=[{"role": "user", "content": "q"}],
                                                      tools=[tool], max_output_tokens=300)))
    assert out.finish_reason == "length" and out.usage.output_tokens <= 300
    (call,) = out.tool_calls
    assert call.name == "context_fold_create" and LONG_ARGS.startswith(call.arguments)
    assert len(call.arguments) < len(LONG_ARGS)
