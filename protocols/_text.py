"""Text measures of the reference host (.NET): lengths in UTF-16 code units, canonical JSON; JSON text as
``json.dumps(value, ensure_ascii=False)`` writes it (``json_text``)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def utf16_len(text: str) -> int:
    """Length as .NET's ``string.Length`` counts it (UTF-16 code units): an ASCII text's length without
    encoding it."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def utf16_slice(text: str, start: int, max_units: int) -> tuple[str, int]:
    """Slice ``text`` from UTF-16 offset ``start``, at most ``max_units`` units.

    Never splits a surrogate pair: if the last unit would be a high surrogate, the slice stops
    one unit earlier. Returns the slice and the UTF-16 offset just after it.
    """
    data = text.encode("utf-16-le")
    total = len(data) // 2
    start = max(0, min(start, total))
    end = min(total, start + max_units)
    if end < total and end > start:
        # unit at end-1 is a high surrogate (D800–DBFF): do not cut after it
        unit = int.from_bytes(data[2 * (end - 1) : 2 * end], "little")
        if 0xD800 <= unit <= 0xDBFF:
            end -= 1
    return data[2 * start : 2 * end].decode("utf-16-le"), end


def utf16_truncate(text: str, max_units: int) -> str:
    """The longest prefix of ``text`` with at most ``max_units`` UTF-16 units."""
    return utf16_slice(text, 0, max_units)[0]


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_PLAIN = json.JSONEncoder(ensure_ascii=False)
_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
_ASCII = json.JSONEncoder()
# ``json.dumps`` builds a new JSONEncoder at every call whose options differ from its defaults; one made once
# with the same options writes the same text (its ``encode`` keeps no state between calls)


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, non-ASCII kept as is."""
    return _CANONICAL.encode(value)


def json_text(value: Any, sort_keys: bool = False, ensure_ascii: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)``, the same text."""
    if ensure_ascii:
        return _ASCII.encode(value) if not sort_keys else json.dumps(value, sort_keys=True)
    return (_SORTED if sort_keys else _PLAIN).encode(value)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
