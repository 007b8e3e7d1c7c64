"""A trial's transcript lines (E-11): each stored snapshot's JSON text with ``trialId`` spliced in front, byte for
byte what decoding the snapshot and encoding ``{"trialId": ..., **snapshot}`` writes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import BinaryIO


def transcript_line(trial_id: str, text: str) -> str:
    """``json.dumps({"trialId": trial_id, **snapshot}, ensure_ascii=False)`` of a snapshot given as its JSON
    text (as ``json.dumps`` writes it), spliced rather than decoded and encoded again: a snapshot holds a
    whole request and provider body, tens of kilobytes. A text that already names ``trialId`` somewhere,
    or is not an object, goes the long way."""
    head = _line_head(trial_id)
    if text.startswith("{") and '"trialId"' not in text:
        rest = text[1:].lstrip()
        return head + "}" if rest.startswith("}") else head + ", " + rest
    snapshot = json.loads(text)
    return json.dumps({"trialId": trial_id, **snapshot}, ensure_ascii=False)


def _line_head(trial_id: str) -> str:
    return '{"trialId": ' + json.dumps(trial_id, ensure_ascii=False)


def write_transcript_lines(fh: BinaryIO, trial_id: str, snapshots: Iterable[bytes]) -> None:
    """``transcript_line(trial_id, text) + "\\n"`` in UTF-8 for each snapshot text, given as its UTF-8. A snapshot
    that opens with ``{"`` and names no ``trialId`` (every one the engine writes) goes out as the line's head and
    its own bytes after the brace, never decoded, encoded or copied (the same bytes: ``"trialId"`` and ``{"`` are
    ASCII, whose bytes occur in UTF-8 only as those characters)."""
    head = (_line_head(trial_id) + ", ").encode("utf-8")
    for data in snapshots:
        if data.startswith(b'{"') and b'"trialId"' not in data:
            fh.write(head)
            fh.write(memoryview(data)[1:])
            fh.write(b"\n")
        else:
            fh.write((transcript_line(trial_id, data.decode("utf-8")) + "\n").encode("utf-8"))
