"""The refusal key (P-80): two requests share it exactly when their material without the seed is the same
canonical JSON, as when the key was that whole text's digest; the parts kept by content never stand in for
a different value."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models import ModelRequest
from harness.runner._cache import request_material
from harness.runner._refusals import refusal_key


def _whole_text_key(model: str, api_base: str | None, request: ModelRequest) -> str:
    """The key as first written: the digest of the whole material's canonical JSON, the seed left out."""
    material = request_material(model, api_base, request)
    material["sampling"] = {k: v for k, v in material["sampling"].items() if k != "seed"}
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Text(str):
    """A str subclass: equal to its text, kept by no content key."""


_LEAF = st.sampled_from(["hi", "Hi", "", "中文", None, 1, True, 1.0, 0, False, "1", "true", Text("hi")])
_VALUE = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=2), st.lists(inner, max_size=2).map(tuple),
    st.dictionaries(st.sampled_from(["a", "b", "type"]), inner, max_size=2),
    st.dictionaries(st.sampled_from([1, "1"]), inner, max_size=1)), max_leaves=5)
_MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": st.sampled_from(["hi", None])}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.none(), "tool_calls": _VALUE}),
    st.dictionaries(st.sampled_from(["role", "content", "name"]), _LEAF, min_size=1, max_size=3),
)
_TOOLS = st.lists(st.fixed_dictionaries({"type": st.just("function"), "function": _VALUE}), max_size=2)


@st.composite
def _requests(draw: st.DrawFn) -> tuple[str, str | None, ModelRequest]:
    request = ModelRequest(
        messages=draw(st.lists(_MESSAGE, max_size=3)), tools=draw(_TOOLS),
        max_output_tokens=draw(st.sampled_from([None, 8])), temperature=draw(st.sampled_from([None, 0.0, 0])),
        top_p=draw(st.sampled_from([None, 1.0])), seed=draw(st.sampled_from([None, 1, 2])),
        extra=draw(st.sampled_from([{}, {"reasoning_effort": "low"}, {"logprobs": True}, {"logprobs": 1}])))
    return draw(st.sampled_from(["m", "n"])), draw(st.sampled_from([None, "http://127.0.0.1:1/v1"])), request


@settings(max_examples=300, deadline=None)
@given(requests=st.lists(_requests(), min_size=2, max_size=6))
def test_p80_two_requests_share_the_key_exactly_when_their_material_is_the_same_text(
        requests: list[tuple[str, str | None, ModelRequest]]) -> None:
    keys = [refusal_key(*r) for r in requests]
    texts = [_whole_text_key(*r) for r in requests]
    assert [[k == other for other in keys] for k in keys] == [[t == other for other in texts] for t in texts]
    assert keys == [refusal_key(*r) for r in requests]  # again, from the parts kept


def _with(request: ModelRequest, **changes: Any) -> ModelRequest:
    return request.model_copy(update=changes)


def test_p80_the_key_ignores_the_seed_and_key_order_and_tells_every_other_change() -> None:
    base = ModelRequest(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
                        tools=[{"type": "function", "function": {"name": "f", "parameters": {"a": 1, "b": [1, 2]}}}],
                        temperature=0, seed=1, max_output_tokens=8)
    key = refusal_key("m", None, base)
    reordered = [{"content": "s", "role": "system"}, {"content": "q", "role": "user"}]
    tuples = [{"function": {"parameters": {"b": (1, 2), "a": 1}, "name": "f"}, "type": "function"}]
    for same in (_with(base, seed=2), _with(base, messages=reordered), _with(base, tools=tuples),
                 _with(base, timeout_seconds=5), copy.deepcopy(base)):
        assert refusal_key("m", None, same) == key
    different = [
        _with(base, messages=[*base.messages[:1], {"role": "user", "content": "Q"}]),
        _with(base, messages=[*base.messages, {"role": "user", "content": "q"}]),
        _with(base, messages=[{"role": "user", "content": "q"}, {"role": "system", "content": "s"}]),
        _with(base, tools=[{"type": "function", "function": {"name": "f", "parameters": {"a": True, "b": [1, 2]}}}]),
        _with(base, tools=[{"type": "function", "function": {"name": "f", "parameters": {"a": 1.0, "b": [1, 2]}}}]),
        _with(base, tools=[]), _with(base, temperature=0.5), _with(base, max_output_tokens=9), _with(base, top_p=1.0),
        _with(base, extra={"reasoning_effort": "low"}),
    ]
    keys = {refusal_key("m", None, r) for r in different} | {refusal_key("n", None, base),
                                                             refusal_key("m", "http://127.0.0.1:1/v1", base)}
    assert len(keys) == len(different) + 2 and key not in keys


def test_p80_a_message_changed_in_place_gets_its_new_key() -> None:
    """Parts are kept by content, never by identity: the same dict, changed, is a different request."""
    request = ModelRequest(messages=[{"role": "user", "content": "q"}])
    first = refusal_key("m", None, request)
    request.messages[0]["content"] = "other"
    assert refusal_key("m", None, request) == refusal_key("m", None, ModelRequest(
        messages=[{"role": "user", "content": "other"}])) != first
    request.messages[0]["content"] = "q"
    assert refusal_key("m", None, request) == first


def test_p80_tools_changed_in_place_between_calls_get_their_new_key() -> None:
    """The same tools list, changed in place (a schema's type, a nested value, a tool added), is a different
    request each time: the tools are digested by content at every call, never by the list's identity."""
    tools: list[dict[str, Any]] = [{"type": "function", "function": {"name": "f", "parameters": {"a": 1}}}]
    # as the engine makes its request: the projection's list itself, not a validated copy
    request = ModelRequest(messages=[{"role": "user", "content": "q"}]).model_copy(update={"tools": tools})
    assert request.tools is tools
    first = refusal_key("m", None, request)
    seen, texts = {first}, {_whole_text_key("m", None, request)}
    for change in (lambda: tools[0]["function"]["parameters"].update(a=True),
                   lambda: tools[0]["function"]["parameters"].update(a=1.0),
                   lambda: tools.append({"type": "function", "function": {"name": "g"}})):
        change()
        key = refusal_key("m", None, request)
        assert key == refusal_key("m", None, ModelRequest(messages=request.messages, tools=copy.deepcopy(tools)))
        text = _whole_text_key("m", None, request)
        assert key not in seen and text not in texts  # a new request, by the whole text's digest as well
        seen.add(key)
        texts.add(text)
    del tools[1]
    tools[0]["function"]["parameters"]["a"] = 1
    assert refusal_key("m", None, request) == first
