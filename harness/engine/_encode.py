"""A call's request encoded once for its hash and its snapshot (E-6, O-30, Q-2).

``requestSha256`` is the SHA-256 of the request's JSON with sorted keys; the snapshot holds the request and
the provider's body as JSON, redacted. A session's history repeats from step to step, so each message is
encoded once per content (its JSON as written, with sorted keys, and whether redaction could change it,
``harness.models.needs_no_redaction``) and a request's texts are joined from those pieces: byte for byte
what ``json.dumps`` writes for the whole (tests/harness/engine/test_encode.py). When any piece could need
redacting, the snapshot is redacted by the walk as a whole (``redacted_json``), exactly as before.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from harness.models import needs_no_redaction, redacted_json
from protocols import ProjectionSource

_Piece = tuple[str, str, bool]
"""A JSON value's text as written, its text with sorted keys, and whether redaction leaves it as it is."""

_MAX = 32768
_PIECES: dict[Any, _Piece] = {}
_LOCK = threading.Lock()
_TEXTUAL = frozenset({str, type(None)})


def _dumps(value: Any, ordered: bool = False) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=ordered)


def _remember(key: Any, piece: _Piece) -> _Piece:
    with _LOCK:
        if len(_PIECES) >= _MAX:  # the oldest goes first
            _PIECES.pop(next(iter(_PIECES)))
        _PIECES[key] = piece
    return piece


def _piece(value: Any, secrets: tuple[str, ...], plain: str | None = None) -> _Piece:
    """A JSON value's piece, by its content: a dict of text values by its items (in their order; equal
    items, equal text), anything else by its JSON text (``plain``, when the caller has it)."""
    if plain is not None:
        key: Any = (secrets, plain)
    elif type(value) is dict and _TEXTUAL.issuperset(map(type, value.values())):
        key = (secrets, tuple(value.items()))
    else:
        plain = _dumps(value)
        key = (secrets, plain)
    hit = _PIECES.get(key)
    if hit is not None:
        return hit
    plain = plain if plain is not None else _dumps(value)
    return _remember(key, (plain, _dumps(value, True), needs_no_redaction(plain, secrets)))


def _source(source: ProjectionSource, secrets: tuple[str, ...]) -> _Piece:
    key = (secrets, "source", source.type, source.message_ids, source.fold_id, source.session_id, source.window_id,
           source.first_index, source.last_index)
    hit = _PIECES.get(key)
    if hit is not None:
        return hit
    wire = source.wire()
    plain = _dumps(wire)
    return _remember(key, (plain, _dumps(wire, True), needs_no_redaction(plain, secrets)))


def _obj(items: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{_dumps(k)}: {v}" for k, v in items) + "}"


def _encode(obj: dict[str, Any], secrets: tuple[str, ...], tools_json: str | None = None) -> tuple[str, str, bool]:
    """A request-like object's JSON as written and with sorted keys (its ``messages`` and ``tools`` joined from
    pieces; ``tools_json`` the tools' JSON as written, when the caller has it), and whether redaction leaves it
    as it is."""
    plain: dict[str, str] = {}
    ordered: dict[str, str] = {}
    clean = True
    small: list[str] = list(obj)
    for key, value in obj.items():
        if key == "messages" and type(value) is list:
            pieces = [_piece(m, secrets) for m in value]
            plain[key] = "[" + ", ".join([p[0] for p in pieces]) + "]"
            ordered[key] = "[" + ", ".join([p[1] for p in pieces]) + "]"
            clean = clean and all([p[2] for p in pieces])
        elif key == "tools" and value:
            plain[key], ordered[key], tools_clean = _piece(value, secrets, tools_json)
            clean = clean and tools_clean
        else:
            plain[key] = _dumps(value)
            ordered[key] = _dumps(value, True)
            small.append(plain[key])
    clean = clean and needs_no_redaction("\n".join(small), secrets)
    return _obj(list(plain.items())), _obj([(k, ordered[k]) for k in sorted(ordered)]), clean


class EncodedRequest:
    """A call's request encoded once, before the call: ``sha256`` (``requestSha256``: SHA-256 of its JSON with
    sorted keys) and ``text`` (its JSON as written, for the snapshot)."""

    def __init__(self, request: dict[str, Any], secrets: tuple[str, ...], tools_json: str | None = None) -> None:
        """``tools_json``: ``json.dumps(request["tools"], ensure_ascii=False)``, when the caller has it."""
        self.text, ordered, self.clean = _encode(request, secrets, tools_json)
        self.sha256 = hashlib.sha256(ordered.encode()).hexdigest()


def snapshot_json(data: dict[str, Any], sources: list[ProjectionSource] | None, secrets: tuple[str, ...],
                  request: EncodedRequest | None = None) -> str:
    """``json.dumps(redact(snapshot))`` of ``data`` with ``sources`` as its ``sources`` (their wire form) and,
    given ``request``, that encoding as its ``request``; ``providerRequest`` joined from pieces as well.
    When anything in it could need redacting, the whole text is redacted by the walk (``redacted_json``)."""
    small: list[str] = list(data)
    items = []
    clean = True
    for key, value in data.items():
        if key == "request" and request is not None:
            text, clean = request.text, clean and request.clean
        elif key == "providerRequest" and type(value) is dict:
            text, _, body_clean = _encode(value, secrets)
            clean = clean and body_clean
        elif key == "sources" and sources is not None:
            pieces = [_source(s, secrets) for s in sources]
            text = "[" + ", ".join([p[0] for p in pieces]) + "]"
            clean = clean and all([p[2] for p in pieces])
        else:
            text = _dumps(value)
            small.append(text)
        items.append((key, text))
    whole = _obj(items)
    if clean and needs_no_redaction("\n".join(small), secrets):
        return whole
    return redacted_json(json.loads(whole), secrets)  # the walk on its JSON form writes what it writes on data
