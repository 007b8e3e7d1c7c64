"""``context_fold_read`` and ``context_fold_list``: P-27, P-54, UTF-16 slicing, P-20 determinism."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from protocols import canonical_json, utf16_len

if TYPE_CHECKING:
    from conftest import Bench

EMOJI = "😀🚀👍🏽🇨🇳"  # surrogate pairs, a modifier and a flag


def _read(bench: Bench, fold_id: str, cursor: int = 0) -> dict:
    return bench.call("context_fold_read", {"purpose": "p", "foldId": fold_id, "cursor": cursor})


def _emoji_fold(bench: Bench, pad: str = "") -> str:
    bench.b.text(pad + EMOJI * 1500)
    bench.b.exchange("lookup", {"q": "报价" + EMOJI}, {"rows": [EMOJI * 800, "ok"]})
    bench.b.text(EMOJI * 900 + "完")
    r = bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": 1, "throughIndex": 4,
                                                    "summary": "emoji work"}))
    return str(r["foldId"])


@pytest.mark.parametrize("pad", ["", "x"])
def test_slices_never_split_a_surrogate_pair_and_concatenate_to_the_canonical_json(bench: Bench,
                                                                                   pad: str) -> None:
    fold_id = _emoji_fold(bench, pad)
    expected = canonical_json([m.wire() for m in bench.store.all_messages(bench.sid)[:4]])
    pieces, cursor, cuts_inside_pair = [], 0, 0
    while cursor is not None:
        r = bench.ok(_read(bench, fold_id, cursor))
        assert r["totalLength"] == utf16_len(expected)
        piece = r["text"]
        piece.encode("utf-16-le")  # raises on a lone surrogate
        assert 0 < utf16_len(piece) <= 12000
        cuts_inside_pair += utf16_len(piece) == 11999
        pieces.append(piece)
        cursor = r["nextCursor"]
    assert "".join(pieces) == expected
    assert len(pieces) >= 3
    assert json.loads("".join(pieces))[0]["content"].endswith(EMOJI)
    if pad == "x":  # with one pad unit the first 12000-unit cut would fall inside a pair
        assert cuts_inside_pair >= 1


def test_read_is_deterministic_and_changes_nothing(bench: Bench) -> None:
    fold_id = _emoji_fold(bench)
    rev, kv = bench.revision(), bench.kv()
    assert _read(bench, fold_id) == _read(bench, fold_id)
    assert bench.revision() == rev and bench.kv() == kv


def test_cursor_inside_a_pair_or_past_the_end_is_invalid(bench: Bench) -> None:
    bench.b.text("😀")
    bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": 1, "throughIndex": 1,
                                                "summary": "s"}))
    text = bench.ok(_read(bench, "f1"))["text"]
    inside = utf16_len(text[: text.index("😀")]) + 1
    assert bench.code(_read(bench, "f1", inside)) == "invalid_arguments"
    total = utf16_len(text)
    end = bench.ok(_read(bench, "f1", total))
    assert end["text"] == "" and end["nextCursor"] is None
    assert bench.code(_read(bench, "f1", total + 1)) == "invalid_arguments"


def test_p27_reads_a_fold_of_another_window_without_switching(bench: Bench) -> None:
    bench.ok(bench.step("context_window_open", {"purpose": "p", "windowId": "alpha", "goal": "quote"}))
    bench.b.text("alpha work")
    bench.b.text("alpha more")
    bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": 3, "throughIndex": 4,
                                                "summary": "alpha"}))
    bench.ok(bench.step("context_window_open", {"purpose": "p", "windowId": "beta", "goal": "schedule"}))
    rev = bench.revision()
    r = bench.ok(_read(bench, "f1"))
    assert r["windowId"] == "alpha" and "alpha work" in r["text"]
    assert bench.active() == "beta" and bench.revision() == rev


def test_p27_a_fold_id_of_another_session_is_not_found(make_bench: Callable[..., Bench]) -> None:
    mine = make_bench()
    theirs = make_bench(store=mine.store, session_id="s2")
    for b in (mine, theirs):
        b.b.text("one")
        b.b.text("two")
    theirs.ok(theirs.call("context_fold_create", {"purpose": "p", "fromIndex": 1, "throughIndex": 1,
                                                  "summary": "theirs"}))
    theirs.ok(theirs.call("context_fold_create", {"purpose": "p", "fromIndex": 2, "throughIndex": 2,
                                                  "summary": "theirs too"}))
    mine.ok(mine.call("context_fold_create", {"purpose": "p", "fromIndex": 1, "throughIndex": 1,
                                              "summary": "mine"}))
    r = _read(mine, "f2")
    assert mine.code(r) == "fold_not_found"
    assert "theirs" not in json.dumps(r)
    assert "mine" not in _read(mine, "f1")["text"] and "one" in _read(mine, "f1")["text"]
    listed = mine.ok(mine.call("context_fold_list", {"purpose": "p"}))["folds"]
    assert [f["summary"] for f in listed] == ["mine"]


def test_p54_fold_list_marks_compressed_folds_and_read_still_returns_raw(bench: Bench) -> None:
    for i in range(1, 7):
        bench.b.text(f"note {i}")
    for first, last in ((1, 2), (3, 4), (5, 6)):
        bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": first, "throughIndex": last,
                                                    "summary": f"notes {first}-{last}"}))
    bench.store.commit(bench.sid, 3, {"coveredThrough/main": 4})
    r = bench.ok(bench.call("context_fold_list", {"purpose": "p", "limit": 2}))
    assert [(f["foldId"], f["compressed"]) for f in r["folds"]] == [("f1", True), ("f2", True)]
    assert r["nextOffset"] == 2 and r["folds"][0] == {"foldId": "f1", "windowId": "main", "fromIndex": 1,
                                                      "throughIndex": 2, "summary": "notes 1-2", "compressed": True}
    r = bench.ok(bench.call("context_fold_list", {"purpose": "p", "offset": 2}))
    assert [(f["foldId"], f["compressed"]) for f in r["folds"]] == [("f3", False)] and r["nextOffset"] is None
    assert "note 1" in bench.ok(_read(bench, "f1"))["text"]


def test_fold_list_of_another_window_and_unknown_window(bench: Bench) -> None:
    bench.b.text("main note")
    bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": 1, "throughIndex": 1,
                                                "summary": "main"}))
    bench.ok(bench.call("context_window_open", {"purpose": "p", "windowId": "alpha", "goal": "g"}))
    assert bench.ok(bench.call("context_fold_list", {"purpose": "p"}))["folds"] == []
    r = bench.ok(bench.call("context_fold_list", {"purpose": "p", "windowId": "main"}))
    assert [f["foldId"] for f in r["folds"]] == ["f1"]
    r = bench.call("context_fold_list", {"purpose": "p", "windowId": "ghost"})
    assert bench.code(r) == "window_not_found"


def test_unknown_fold_is_not_found(bench: Bench) -> None:
    assert bench.code(_read(bench, "f9")) == "fold_not_found"
