"""JSON text from encoders made once, UTF-16 lengths without encoding ASCII (Q-2): the same as the slow way."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from protocols import _mapping
from protocols._text import canonical_json, json_text, utf16_len

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(value=_json, sort_keys=st.booleans(), ensure_ascii=st.booleans())
def test_json_text_is_what_json_dumps_writes(value: Any, sort_keys: bool, ensure_ascii: bool) -> None:
    assert json_text(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii) == json.dumps(
        value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    assert canonical_json(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@given(text=st.text())
def test_utf16_len_counts_utf16_units(text: str) -> None:
    assert utf16_len(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2


def test_business_tools_json_follows_a_list_changed_in_place() -> None:
    """The same list object handed again after a change (a value of another type that compares equal, a new
    key) is written again, never taken from what was kept."""
    tools: list[dict[str, Any]] = [{"type": "function", "function": {"name": "quote", "parameters": {"min": 1}}}]
    assert _mapping._business_json(tools) == json.dumps(tools, ensure_ascii=False)
    tools[0]["function"]["parameters"]["min"] = True  # == 1, but JSON writes true
    assert _mapping._business_json(tools) == json.dumps(tools, ensure_ascii=False)
    tools[0]["function"]["parameters"]["min"] = 1.0
    assert _mapping._business_json(tools) == json.dumps(tools, ensure_ascii=False)
    tools.append({"type": "function", "function": {"name": "é"}})
    assert _mapping._business_json(tools) == json.dumps(tools, ensure_ascii=False)
    weird: list[Any] = [{"x": object()}]  # not JSON (nor marshal): no text, as before
    assert _mapping._business_json(weird) is None
