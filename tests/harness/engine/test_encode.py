"""A call's request encoded once (Q-2): the hash and the snapshot joined from pieces cached per content are
byte for byte what hashing and redacting the whole wrote (E-6, O-30)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine._encode import _PARTS, EncodedRequest, snapshot_json
from harness.models import redact
from protocols import ProjectionSource

SECRET = "local-PLANTED-0123456789"
_TEXT = st.lists(st.sampled_from(["ok", "sk-" + "a" * 14, "Bearer abcdefgh1", SECRET, '"', "\n", "é", "×", "AIza",
                                  "\u212aey", "quote", "", _PARTS[0][0], _PARTS[1][0]]), max_size=3).map("".join)
"""Texts that test every branch: secrets, JSON escapes, and the stand-ins of the snapshot's joined values."""
_CALL = st.fixed_dictionaries({"id": _TEXT, "type": st.just("function"),
                               "function": st.fixed_dictionaries({"name": _TEXT, "arguments": _TEXT})})
_MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]), "content": _TEXT}),
    st.fixed_dictionaries({"content": _TEXT, "role": st.just("assistant")}),  # the same items, another order
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": _TEXT, "content": st.one_of(_TEXT, st.none())}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": _TEXT, "tool_calls": st.lists(_CALL, max_size=2)}),
    st.fixed_dictionaries({"role": st.just("user"), "content": st.lists(
        st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}), max_size=2)}),
    st.dictionaries(st.sampled_from(["role", "content", "api_key", "n", "Authorization"]),
                    st.one_of(_TEXT, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
                    max_size=3),
)
_TOOLS = st.lists(st.fixed_dictionaries({"type": st.just("function"), "function": st.fixed_dictionaries(
    {"name": _TEXT, "description": _TEXT, "parameters": st.just({"type": "object", "properties": {}})})}), max_size=2)
_SOURCE = st.builds(ProjectionSource, type=st.sampled_from(["raw", "context_fold", "system"]),
                    message_ids=st.lists(_TEXT, max_size=2).map(tuple), fold_id=st.one_of(st.none(), _TEXT),
                    first_index=st.one_of(st.none(), st.integers(1, 9)))


def _request(messages: list[dict[str, Any]], tools: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    return {"model": "scripted/x", "messages": messages, "tools": tools, "params": params}


_PARAMS = st.fixed_dictionaries({"max_tokens": st.integers(1, 9), "temperature": st.one_of(st.none(), st.floats(0, 2)),
                                 "timeout": st.just(60.0)})


@settings(max_examples=250, deadline=None)
@given(messages=st.lists(_MESSAGE, max_size=6), tools=_TOOLS, params=_PARAMS,
       secrets=st.sampled_from([(), (SECRET,)]))
def test_q2_request_sha256_is_the_hash_of_the_sorted_json(messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                                                          params: dict[str, Any], secrets: tuple[str, ...]) -> None:
    request = _request(messages, tools, params)
    expected = hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    for given_json in (None, json.dumps(tools, ensure_ascii=False)):  # the tools' JSON given, as the engine does
        for _ in range(2):  # cold, then from the cached pieces
            encoded = EncodedRequest(request, secrets, given_json)
            assert encoded.sha256 == expected
            assert encoded.text == json.dumps(request, ensure_ascii=False)


def _sent(messages: list[dict[str, Any]], how: str) -> list[dict[str, Any]]:
    """The messages a provider body holds: the request's (copies), the same items in another order, or values
    that compare equal but write another JSON (``True`` for ``1``, ``False`` for ``0``, a float for an int)."""
    if how == "copies":
        return [dict(m) for m in messages]
    if how == "reordered":
        return [dict(reversed(m.items())) for m in messages]
    return [{k: _alike(v) for k, v in m.items()} for m in messages]


def _alike(value: Any) -> Any:
    if type(value) is int:
        return bool(value) if value in (0, 1) else float(value)
    return value


@settings(max_examples=300, deadline=None)
@given(messages=st.lists(_MESSAGE, max_size=6), tools=_TOOLS, params=_PARAMS, answer=_TEXT,
       sources=st.one_of(st.none(), st.lists(_SOURCE, max_size=4)),
       provider=st.sampled_from([None, "copies", "reordered", "equal-but-not-the-same"]),
       secrets=st.sampled_from([(), (SECRET,)]))
def test_q2_o30_snapshot_json_is_the_json_of_the_redacted_snapshot(
        messages: list[dict[str, Any]], tools: list[dict[str, Any]], params: dict[str, Any], answer: str,
        sources: list[ProjectionSource] | None, provider: str | None, secrets: tuple[str, ...]) -> None:
    """A provider body that sends the request's messages takes their text from the request's encoding: only when
    they are the same, key order and value types included."""
    request = _request(messages, tools, params)
    body = ({"model": "x", "messages": _sent(messages, provider), "tools": tools, "api_key": None}
            if provider else None)
    data = {"id": "s/1", "seq": 1, "request": request, "sources": None, "requestSha256": "0" * 64,
            "response": {"content": answer}, "providerRequest": body, "cacheKey": None}
    whole = {**data, "sources": None if sources is None else [s.wire() for s in sources]}
    expected = json.dumps(redact(whole, secrets), ensure_ascii=False)
    for _ in range(2):  # cold, then from the cached pieces
        assert snapshot_json(data, sources, secrets) == expected
        assert snapshot_json(data, sources, secrets, EncodedRequest(request, secrets)) == expected


def test_q2_o30_a_secret_in_history_is_redacted_in_every_later_snapshot() -> None:
    """A piece that needs redacting keeps saying so from the cache: the snapshot is redacted by the walk."""
    messages = [{"role": "user", "content": f"my key is {SECRET}"}, {"role": "assistant", "content": "noted"}]
    for step in range(3):
        data = {"id": f"s/{step}", "request": _request(messages, [], {}), "sources": None}
        text = snapshot_json(data, None, (SECRET,), EncodedRequest(data["request"], (SECRET,)))
        assert SECRET not in text and "[REDACTED]" in text
        messages = [*messages, {"role": "user", "content": f"step {step}"}]
