"""A transcript line is the stored snapshot text with ``trialId`` spliced in front (E-11): byte for byte
what decoding the snapshot and encoding ``{"trialId": ..., **snapshot}`` writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.runner._persist import transcript_line

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _old(trial_id: str, snapshot: dict[str, Any]) -> str:
    return json.dumps({"trialId": trial_id, **snapshot}, ensure_ascii=False)


@given(st.text(max_size=12), st.dictionaries(st.text(max_size=10), _json, max_size=6))
def test_the_spliced_line_is_the_decoded_and_encoded_one(trial_id: str, snapshot: dict[str, Any]) -> None:
    text = json.dumps(snapshot, ensure_ascii=False)
    assert transcript_line(trial_id, text) == _old(trial_id, snapshot)


def test_a_snapshot_that_names_trial_id_keeps_its_own_value_as_before() -> None:
    snapshot = {"request": {"note": "trialId"}, "trialId": "theirs", "x": "é"}
    line = transcript_line("A/simple/1", json.dumps(snapshot, ensure_ascii=False))
    assert line == _old("A/simple/1", snapshot)
    assert json.loads(line)["trialId"] == "theirs"


def test_an_empty_snapshot_and_a_real_one() -> None:
    assert transcript_line("t", "{}") == '{"trialId": "t"}'
    real = {"role": "agent", "request": {"messages": [{"role": "user", "content": "你好 \u2028"}]}, "usage": None}
    assert transcript_line("G/s/2~1", json.dumps(real, ensure_ascii=False)) == _old("G/s/2~1", real)
