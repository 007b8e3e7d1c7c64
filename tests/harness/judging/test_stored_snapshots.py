"""The judges read a trial's snapshots as stored (E-11): ``decode_snapshot`` is ``json.loads`` of the stored
text (values, key order, and the same text when written again), also where a remembered tools text appears inside a
string, after another key or in a text that holds ``NaN`` or ``Infinity``; given the text's UTF-8, the same."""

from __future__ import annotations

import copy
import json
import math
import pickle
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.judging import _stored
from harness.judging._stored import decode_snapshot, decode_snapshots, learnable

_scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
_json = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=12)
_tool = st.fixed_dictionaries({"type": st.just("function"), "function": st.fixed_dictionaries({
    "name": st.text(min_size=1, max_size=8), "description": st.text(max_size=12), "parameters": _json})})
_tools = st.lists(_tool | st.dictionaries(st.text(max_size=4), _json, min_size=1, max_size=3), min_size=1, max_size=3)


def _written(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _same(decoded: Any, text: str) -> None:
    """Equal to ``json.loads(text)`` in values, types and key order (``json.dumps`` writes each the same), and so is
    the decoding of the text's UTF-8."""
    assert _written(decoded) == _written(json.loads(text))
    assert _written(decode_snapshot(text.encode("utf-8"))) == _written(json.loads(text))


def _snapshot(tools: list[Any], body_tools: list[Any] | None, noise: Any) -> dict[str, Any]:
    return {"id": "s/1", "request": {"messages": [{"role": "user", "content": "hi"}], "tools": tools},
            "noise": noise, "providerRequest": {"model": "m", "tools": tools if body_tools is None else body_tools},
            "sampling": {"temperature": 0}}


@settings(max_examples=150, deadline=None)
@given(_tools, st.none() | _tools, _json, st.sampled_from(["string", "key", "quote", "nan", "inf", "plain", "ints"]))
def test_decoding_is_json_loads_wherever_the_known_tools_text_appears(tools: list[Any], body_tools: list[Any] | None,
                                                                       noise: Any, where: str) -> None:
    known = _snapshot(tools, body_tools, None)
    decode_snapshot(_written(known))  # learnt here (or before)
    text = _written(tools)
    extra = {"string": f'"tools": {text}', "key": {f'"tools": {text}': tools, "tools": [tools, text]},
             "quote": {'a"tools': tools, "b": {"tools": tools}},
             "nan": float("nan"), "inf": [float("inf"), float("-inf")], "plain": noise, "ints": [1, 1.0, True]}[where]
    other = _snapshot(tools, body_tools, [noise, extra])
    written = _written(other)
    _same(decode_snapshot(written), written)
    _same(decode_snapshot(written), written)  # the second time from what the first one learnt


@given(st.text(max_size=40))
def test_any_text_decodes_or_fails_as_json_loads_does(text: str) -> None:
    decode_snapshot(_written(_snapshot([{"type": "function"}], None, None)))
    for candidate in (text, '{"tools": ' + text + "}", '{"tools": [{"type": "function"}], "x": ' + text + "}"):
        try:
            expected = json.loads(candidate)
        except ValueError:
            continue
        assert _written(decode_snapshot(candidate)) == _written(expected)
        assert _written(decode_snapshot(candidate.encode("utf-8"))) == _written(expected)
    for candidate in (text, "\ufeff{}", '\ufeff{"tools": [{"type": "function"}]}'):  # a BOM fails as it does in text
        try:
            expected = json.loads(candidate)
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                decode_snapshot(candidate.encode("utf-8"))


def test_the_known_tools_are_decoded_once_and_shared_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [{"type": "function", "function": {"name": "quote", "description": "Compute a quote", "parameters": {}}}]
    first = _written(_snapshot(tools, None, 1))
    decode_snapshot(first)
    assert any(k.text == _written(tools) for k in _stored._KNOWN)
    loads = []
    monkeypatch.setattr(_stored.json, "loads", lambda text: loads.append(text))
    one, two = decode_snapshots([_written(_snapshot(tools, None, 2)), _written(_snapshot(tools, None, 3))])
    monkeypatch.undo()
    assert loads == []  # each text decoded without json.loads: its tools not decoded again
    shared = one["request"]["tools"]
    assert shared == tools and shared is one["providerRequest"]["tools"] is two["request"]["tools"]
    changes = [lambda: shared.append(1), lambda: shared[0].update(a=1), lambda: shared[0]["function"].pop("name"),
               lambda: shared.sort(), lambda: shared[0].setdefault("b", 2), lambda: shared.__setitem__(0, 1)]
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert decode_snapshot(first)["request"]["tools"] == tools
    plain = copy.deepcopy(one)
    plain["request"]["tools"][0]["function"]["name"] = "changed"  # a copy is a plain one
    assert type(plain["request"]["tools"]) is list and shared == tools
    assert pickle.loads(pickle.dumps(one)) == one


def test_only_a_list_of_objects_whose_first_key_cannot_follow_a_string_is_remembered() -> None:
    assert learnable('[{"type": "function"}]') and learnable('[{"": 1}]')
    assert not learnable("[]") and not learnable('[1, {"a": 2}]') and not learnable('[{", ": 1}]')
    assert not learnable('[{"}": 1}]') and not learnable('[{" a": 1}]')


def test_a_nan_in_the_tools_or_elsewhere() -> None:
    tools = [{"type": "function", "function": {"name": "calc", "description": "never returns NaN"}}]
    decode_snapshot(_written(_snapshot(tools, None, 0)))
    for noise in ("NaN", [float("nan")], {"NaN": 1}, "plain", float("inf")):
        text = _written(_snapshot(tools, None, noise))
        _same(decode_snapshot(text), text)
    text = _written(_snapshot(tools, None, "NaN"))
    assert _stored._without(text, _written(tools))[1] == 2
    cut, count = _stored._without(text.encode("utf-8"), _written(tools).encode("utf-8"))
    assert count == 2 and cut == _stored._without(text, _written(tools))[0].encode("utf-8")


def test_utf8_is_cut_where_the_text_is() -> None:
    """The tools anchor and text found in UTF-8 where they are in the text, never inside a character's bytes."""
    tools = [{"type": "function", "function": {"name": "报价", "description": "计算 \u2028 总价 😀"}}]
    decode_snapshot(_written(_snapshot(tools, None, 0)))
    for noise in ('"tools": ' + _written(tools), "“tools”: 报价", {"工具": tools}, ["😀", "\u2028"]):
        text = _written(_snapshot(tools, None, noise))
        _same(decode_snapshot(text.encode("utf-8")), text)
        cut, count = _stored._without(text.encode("utf-8"), _written(tools).encode("utf-8"))
        assert count == 2 and cut.decode("utf-8") == _stored._without(text, _written(tools))[0]


def test_a_nan_the_decoder_meets_beyond_the_tools_falls_back_to_json_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The placeholders are counted as the decoder meets them: a ``NaN`` float of the snapshot's own sends the text to
    ``json.loads``; ``NaN`` in a string is no constant, and the text is decoded without it."""
    tools = [{"type": "function", "function": {"name": "calc", "description": "NaN-safe"}}]
    decode_snapshot(_written(_snapshot(tools, None, 0)))
    loads: list[Any] = []
    real = json.loads

    def counted(text: Any) -> Any:
        loads.append(text)
        return real(text)

    monkeypatch.setattr(_stored.json, "loads", counted)
    for noise, fallback in (("NaN", False), ({"NaN": "NaN"}, False), (float("nan"), True), ([1, float("nan")], True)):
        loads.clear()
        text = _written(_snapshot(tools, None, noise))
        for form in (text, text.encode("utf-8")):
            decoded = decode_snapshot(form)
            assert _written(decoded) == _written(real(text)) and decoded["request"]["tools"] == tools
        assert bool(loads) is fallback, noise


def _constants(value: Any) -> set[str]:
    """The JSON constants ``json.dumps`` writes for ``value``'s floats (``NaN``, ``Infinity``, ``-Infinity``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return set().union(*(_constants(item) for item in items))


_message = st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]),
                                  "content": st.text(max_size=8) | _json})


@settings(max_examples=150, deadline=None)
@given(st.lists(_message, min_size=1, max_size=3), st.none() | st.lists(_message, max_size=2), _json,
       st.sampled_from(["string", "key", "quote", "nan", "inf", "tools", "plain", "nested"]), st.booleans())
@example([{"role": "user", "content": ""}], None, float("inf"), "string", False)  # the noise is a constant itself
@example([{"role": "user", "content": ""}], None, float("nan"), "plain", True)
@example([{"role": "user", "content": [float("-inf")]}], None, 0, "plain", False)  # the messages hold one
def test_the_body_messages_are_json_loads_wherever_the_request_messages_text_appears(
        messages: list[Any], body: list[Any] | None, noise: Any, where: str, known: bool) -> None:
    """A request's messages text decoded once, given again where the same text follows ``"messages": ``; a snapshot
    whose body messages differ, or that holds a constant of its own, decodes as ``json.loads`` does."""
    tools = [{"type": "function", "function": {"name": "t", "description": "d"}}]
    if known:
        decode_snapshot(_written(_snapshot(tools, None, 0)))
    text = _written(messages)
    extra = {"string": f'"messages": {text}', "key": {f'"messages": {text}': messages, "messages": [messages, text]},
             "quote": {'a"messages': messages, "b": {"messages": messages}}, "nan": [float("nan"), messages],
             "inf": [float("inf"), float("-inf"), messages], "tools": {"messages": [{"tools": tools}]},
             "plain": noise, "nested": {"messages": {"messages": messages}}}[where]
    snap = _snapshot(tools if known else [], None, [noise, extra])
    snap["request"]["messages"], snap["providerRequest"]["messages"] = messages, messages if body is None else body
    written = _written(snap)
    for form in (written, written.encode("utf-8")):
        decoded = decode_snapshot(form)
        assert _written(decoded) == _written(json.loads(written))
        shared = decoded["request"]["messages"] is decoded["providerRequest"]["messages"]
        # a constant of its own, wherever the generated values put one: json.loads, nothing shared
        own = bool(_constants(messages)) or "Infinity" in _constants(snap) or (known and "NaN" in _constants(snap))
        assert shared is (not own and (body is None or _written(body) == text)), (where, body)


def test_the_shared_messages_are_read_only_and_a_copy_is_plain() -> None:
    tools = [{"type": "function", "function": {"name": "quote", "description": "Compute a quote"}}]
    decode_snapshot(_written(_snapshot(tools, None, 0)))
    messages = [{"role": "user", "content": [{"type": "text", "text": "报价 😀"}]},
                {"role": "assistant", "content": "x"}]
    for known in (tools, []):
        snap = _snapshot(known, None, 1)
        snap["request"]["messages"] = snap["providerRequest"]["messages"] = messages
        decoded = decode_snapshot(_written(snap).encode("utf-8"))
        shared = decoded["request"]["messages"]
        assert shared == messages and shared is decoded["providerRequest"]["messages"]
        changes = (lambda s: s.append(1), lambda s: s[0].update(a=1), lambda s: s[0]["content"].pop(),
                   lambda s: s[1].__setitem__("role", "user"))
        for change in changes:
            with pytest.raises(TypeError, match="read-only"):
                change(shared)
        plain = copy.deepcopy(decoded)  # plain lists and dicts, the shared value untouched by a change of the copy
        assert type(plain["request"]["messages"]) is list and type(plain["providerRequest"]["messages"][1]) is dict
        plain["request"]["messages"][1]["role"] = "user"
        assert shared == messages and pickle.loads(pickle.dumps(decoded)) == decoded
    alone = _snapshot(tools, None, 1)  # written once (no body messages): nothing shared, a plain list
    assert type(decode_snapshot(_written(alone))["request"]["messages"]) is list
