"""The captured provider body (E-11): its JSON text is what ``json.dumps`` writes for the whole body, byte for
byte, the tools' text kept by content or not."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models._capture import body_pieces, body_text


class Text(str):
    """A str subclass: the same text, kept by no content key."""


_LEAF = st.one_of(st.sampled_from(["", "é 中文", '"q"\\', None, True, False, 0, 1, -0.0, 1.5, 1e300, float("nan"),
                                   Text("t"), date(2026, 1, 2), b"raw", (1, 2)]), st.text(max_size=4))
_VALUE = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
    st.dictionaries(st.sampled_from(["a", "type", "é"]), inner, max_size=3),
    st.dictionaries(st.sampled_from([1, 2.5, True, None]), inner, max_size=2)), max_leaves=8)
_BODY = st.dictionaries(st.sampled_from(["model", "messages", "tools", "temperature", 7]), _VALUE, max_size=4)


def _whole(body: dict[Any, Any]) -> str:
    return json.dumps(body, default=str, ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(body=_BODY, tools=st.lists(_VALUE, max_size=3))
def test_e11_the_body_text_is_the_whole_body_encoded(body: dict[Any, Any], tools: list[Any]) -> None:
    assert body_text(body) == _whole(body)
    with_tools = {**body, "tools": tools, "messages": [{"role": "user", "content": "é"}, *tools]}
    assert body_text(with_tools) == _whole(with_tools)
    assert body_text(with_tools) == _whole(with_tools)  # again, the texts kept


def _keys_and_strings(value: Any) -> list[str]:
    """Each key (with the ``":`` after it) and each string of a JSON value, as JSON writes it."""
    if isinstance(value, str):
        return [json.dumps(value, ensure_ascii=False)]
    if isinstance(value, dict):
        return [text for k, v in value.items()
                for text in [json.dumps(k, ensure_ascii=False) + ":", *_keys_and_strings(v)]]
    if isinstance(value, list):
        return [text for v in value for text in _keys_and_strings(v)]
    return []


@settings(max_examples=400, deadline=None)
@given(body=_BODY, tools=st.lists(_VALUE, max_size=3), small=st.sampled_from([0, 1, True, None, "auto", -0.0, 7.5]))
def test_e11_the_pieces_join_into_the_body_text_and_hold_each_key_and_string_whole(
        body: dict[Any, Any], tools: list[Any], small: Any) -> None:
    """What the redaction's scan of the pieces relies on (``_redact._clean_pieces``)."""
    for value in (body, {**body, "tools": tools, "messages": [{"role": "user", "content": "é"}, *tools],
                         "temperature": small, "seed": small}):
        for _ in range(2):  # again, the texts kept
            pieces = body_pieces(value)
            assert "".join(pieces) == _whole(value)
            if all(type(k) is str for k in value):
                for text in _keys_and_strings(json.loads(_whole(value))):
                    assert any(text in piece for piece in pieces), text


def test_e11_tools_equal_in_value_but_not_in_type_are_written_as_their_own() -> None:
    """``True`` and ``1``, ``1.0`` and ``1`` are equal in Python and written differently: never one for the other."""
    for first, second in [(True, 1), (1, 1.0), (0.0, -0.0), ("1", Text("1"))]:
        a = {"tools": [{"type": "function", "default": first}]}
        b = {"tools": [{"type": "function", "default": second}]}
        assert (body_text(a), body_text(b)) == (_whole(a), _whole(b))
    for first, second in [(True, 1), (1, 1.0), (0.0, -0.0), ("1", Text("1")), (None, "null"), (1, "1")]:
        a, b = {"temperature": first}, {"temperature": second}
        assert (body_text(a), body_text(b)) == (_whole(a), _whole(b))
    for first, second in [(True, 1), (1, 1.0), (0.0, -0.0), ("1", Text("1"))]:
        a = {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "index": first}]}]}
        b = {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "index": second}]}]}
        assert (body_text(a), body_text(b)) == (_whole(a), _whole(b))
    for one, other in [("1", Text("1")), (None, "null")]:
        a, b = {"messages": [{"role": "user", "content": one}]}, {"messages": [{"role": "user", "content": other}]}
        assert (body_text(a), body_text(b)) == (_whole(a), _whole(b))
