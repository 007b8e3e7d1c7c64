"""E-11: a session's snapshots in UTF-8 (``snapshot_utf8``) are the UTF-8 of their texts (``snapshot_texts``), on
every backend: what the runner writes into a transcript as it is and decodes for its judges."""

from __future__ import annotations

import json

from protocols.store import SessionStore


def test_e11_snapshot_utf8_is_the_texts_utf8(store: SessionStore) -> None:
    store.create_session("s1")
    store.create_session("s2")
    texts = [json.dumps({"request": {"messages": ["报价 \u2028 😀", {"k": None}]}, "n": 1.5}, ensure_ascii=False),
             json.dumps({"a": "\\u00e9 \"q\"", "b": [1, 2.5, True]}), "{}"]
    for n, text in enumerate(texts):
        store.put_snapshot_json("s1", f"id{n}", text)
    store.put_snapshot("s2", "other", {"x": "é"})
    assert store.snapshot_utf8("s1") == [(f"id{n}", text.encode("utf-8")) for n, text in enumerate(texts)]
    assert store.snapshot_utf8("s2") == [(sid, text.encode("utf-8")) for sid, text in store.snapshot_texts("s2")]
    assert store.snapshot_utf8("s2")[0][1].decode("utf-8") == json.dumps({"x": "é"}, ensure_ascii=False)
