"""A transcript line is the stored snapshot text with ``trialId`` spliced in front (E-11): byte for byte
what decoding the snapshot and encoding ``{"trialId": ..., **snapshot}`` writes; a transcript file is those lines
in UTF-8, written from the snapshots' UTF-8."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.results._records import TrialRecord
from harness.results._transcripts import transcript_line
from harness.runner._persist import RunDir

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


_TEXTS = ["{}", "{ }", ' {"a": 1}', '{ "a": 1}', '{\n"a": "é"}', '{"trialId": "theirs", "x": 1}',
          '{"a": {"trialId": 2}}', '{"a": "say \\"trialId\\""}', '{"a": "报价 \u2028 😀"}', "{\"a\": 1}\t"]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12), st.lists(st.dictionaries(st.text(max_size=10), _json, max_size=6), max_size=4))
def test_a_transcript_file_is_each_line_in_utf8(tmp_path_factory: pytest.TempPathFactory, trial_id: str,
                                               snapshots: list[dict[str, Any]]) -> None:
    """``write_transcript`` of the snapshots' UTF-8 writes ``transcript_line`` of each text and a newline, in UTF-8
    (the spliced bytes, or the long way for a text that names ``trialId`` or does not open with ``{"``)."""
    texts = [json.dumps(s, ensure_ascii=False) for s in snapshots] + _TEXTS
    run = RunDir(tmp_path_factory.mktemp("run"))
    record = TrialRecord(id=trial_id or "t", group="A", stage="s", repeat=1, status="passed")
    path = run.write_transcript(record, [t.encode("utf-8") for t in texts])
    expected = "".join(transcript_line(record.id, text) + "\n" for text in texts)
    assert path.read_bytes() == expected.encode("utf-8")
