"""Tool schemas kept as the code that builds them (ToolSchemas): each request's list equal to what was given, of
the same types, sharing no dict or list with any other (a provider adapter may change what it is handed)."""

from __future__ import annotations

import json
import marshal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import AgentConfig, resolve_ref
from protocols._statefile import read_state_file
from protocols.tools import ToolSchemas

WORKED = Path(__file__).parents[1] / "data" / "worked_example.json"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


def _containers(value: Any, into: list[Any]) -> list[Any]:
    if isinstance(value, dict | list):
        into.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, into)
    return into


@settings(max_examples=300, deadline=None)
@given(tools=st.lists(JSON, max_size=5))
def test_fresh_is_the_given_list_with_every_container_new(tools: list[Any]) -> None:
    kept_bytes = marshal.dumps(tools, 0)  # tells 1, 1.0 and True apart, and -0.0 from 0.0
    kept = ToolSchemas(tools)
    first, second = kept.fresh(), kept.fresh()
    assert marshal.dumps(first, 0) == kept_bytes == marshal.dumps(second, 0)
    assert kept.json == json.dumps(tools, ensure_ascii=False) and len(kept) == len(tools)
    ids = [id(c) for c in _containers(first, []) + _containers(second, []) + _containers(tools, [])]
    assert len(ids) == len(set(ids))
    for container in _containers(first, []):  # what a caller does to its list reaches no later one
        container.clear()
    assert marshal.dumps(kept.fresh(), 0) == kept_bytes


def test_kept_as_given_and_refuses_what_is_not_json() -> None:
    tools: list[Any] = [{"type": "function", "function": {"name": "quote", "parameters": {"min": 1}}}]
    kept = ToolSchemas(tools)
    tools[0]["function"]["parameters"]["min"] = True  # the giver's later change is not in it
    assert kept.fresh() == [{"type": "function", "function": {"name": "quote", "parameters": {"min": 1}}}]
    assert type(kept.fresh()[0]["function"]["parameters"]["min"]) is int
    for odd in ([{"name": {1, 2}}], [{1: "x"}], [("a",)], {"a": 1}, [{"x": object()}]):
        with pytest.raises(TypeError):
            ToolSchemas(odd)  # type: ignore[arg-type]
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(TypeError):
        ToolSchemas(looped)


def test_a_projection_of_kept_business_tools_is_as_of_the_list() -> None:
    """project() given ToolSchemas makes the request it makes from the plain list, and each request's tools are
    its own."""
    business = [{"type": "function", "function": {"name": "quote", "description": "报价 ×",
                                                  "parameters": {"type": "object", "required": ["a"]}}}]
    loaded = read_state_file(WORKED)
    protocol = resolve_ref("unified@3")
    agent = AgentConfig(systemPrompt="You help.\n{{context_protocol}}", inputs={"customer": "ACME"},
                        contextMaintainer=True)
    kept = ToolSchemas(business)
    plain = protocol.project(loaded.store, loaded.session_id, loaded.frozen, agent, business_tools=business)
    first = protocol.project(loaded.store, loaded.session_id, loaded.frozen, agent, business_tools=kept)
    assert first.tools == plain.tools and first.tools_json == plain.tools_json
    assert first.tools_json == json.dumps(plain.tools, ensure_ascii=False)
    first.tools[-1]["function"]["parameters"]["required"].append("b")
    second = protocol.project(loaded.store, loaded.session_id, loaded.frozen, agent, business_tools=kept)
    assert second.tools == plain.tools and second.tools[-1] is not first.tools[-1]
