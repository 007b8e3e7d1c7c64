"""The JSON encoders kept once (the capture's pieces, the redaction's scan, the token cache's keys, the refusal
key's parts) write exactly what ``json.dumps`` writes with the same options, which builds a new encoder at every
call: the same text for any value, including non-ASCII text, odd floats, non-str keys and leaves only
``default=str`` can write."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models._capture import _dumps
from harness.models._redact import _json_or_none
from harness.models._tokens import _key
from harness.runner._refusals import _canonical

_JSON_LEAF = st.one_of(st.sampled_from(["", "é 中文 \u2028", '"q"\\\n', None, True, False, 0, 1, -0.0, 1.5, 1e300,
                                        float("nan"), float("-inf"), 2**70]), st.text(max_size=6))
_ODD_LEAF = st.sampled_from([date(2026, 1, 2), b"raw", (1, 2)])


def _values(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(leaf, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(st.sampled_from(["b", "a", "type", "é"]), inner, max_size=3),
        st.dictionaries(st.sampled_from([2, 1, 2.5, True, None]), inner, max_size=2)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(value=_values(st.one_of(_JSON_LEAF, _ODD_LEAF)))
def test_the_kept_encoders_with_default_str_write_what_json_dumps_writes(value: Any) -> None:
    assert _dumps(value) == json.dumps(value, default=str, ensure_ascii=False)
    try:
        canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    except TypeError:  # keys json cannot sort (1 and None): the kept encoder refuses them alike
        canonical = None
    if canonical is not None:
        assert _canonical(value) == canonical
        message = {"role": "assistant", "tool_calls": [value]}  # not hashable: keyed by its sorted JSON
        assert _key(message) == json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)


@settings(max_examples=300, deadline=None)
@given(value=_values(_JSON_LEAF), odd=st.sampled_from([date(2026, 1, 2), b"raw", object()]))
def test_the_redactions_kept_encoder_writes_what_json_dumps_writes_and_none_where_it_refuses(
        value: Any, odd: Any) -> None:
    assert _json_or_none(value) == json.dumps(value, ensure_ascii=False)
    assert _json_or_none([value, odd]) is None
