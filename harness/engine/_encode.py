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
from protocols._text import json_text


class _Piece:
    """A JSON value's text as written, its text with sorted keys, whether redaction leaves it as it is and,
    for a message, its token count by counter model (``tokens``: filled by ``_tokens.segment_tokens``)."""

    __slots__ = ("plain", "ordered", "clean", "tokens", "textual")

    def __init__(self, plain: str, ordered: str, clean: bool, textual: bool = False) -> None:
        self.plain, self.ordered, self.clean, self.textual = plain, ordered, clean, textual
        self.tokens: dict[str, int] = {}


_MAX = 32768
_PIECES: dict[Any, _Piece] = {}
_SOURCES: dict[int, tuple[ProjectionSource, tuple[str, ...], _Piece]] = {}
"""Sources seen, by identity (each held, with the secrets its piece was tested against)."""
_LOCK = threading.Lock()
_TEXTUAL = frozenset({str, type(None)})


def _dumps(value: Any, ordered: bool = False) -> str:
    return json_text(value, sort_keys=ordered)


def _remember(key: Any, piece: _Piece) -> _Piece:
    with _LOCK:
        if len(_PIECES) >= _MAX:  # the oldest goes first
            _PIECES.pop(next(iter(_PIECES)))
        _PIECES[key] = piece
    return piece


def _textual(value: Any) -> bool:
    """A dict of text values: its items say its JSON (in their order; equal items, equal text)."""
    return type(value) is dict and _TEXTUAL.issuperset(map(type, value.values()))


def _piece(value: Any, secrets: tuple[str, ...], plain: str | None = None) -> _Piece:
    """A JSON value's piece, by its content: a dict of text values by its items, anything else by its JSON
    text (``plain``, when the caller has it)."""
    textual = plain is None and _textual(value)
    if plain is not None:
        key: Any = (secrets, plain)
    elif textual:
        key = (secrets, tuple(value.items()))
    else:
        plain = _dumps(value)
        key = (secrets, plain)
    hit = _PIECES.get(key)
    if hit is not None:
        return hit
    plain = plain if plain is not None else _dumps(value)
    return _remember(key, _Piece(plain, _dumps(value, True), needs_no_redaction(plain, secrets), textual))


def message_pieces(messages: list[dict[str, Any]], secrets: tuple[str, ...]) -> list[_Piece]:
    """Each message's piece (looked up once a step: the request's hash and text and its segment counts read it);
    ``_piece`` of each, a message of text values found without a call."""
    out = []
    get, textual = _PIECES.get, _TEXTUAL.issuperset
    for message in messages:
        if type(message) is dict and textual(map(type, message.values())):
            hit = get((secrets, tuple(message.items())))
            if hit is not None:
                out.append(hit)
                continue
        out.append(_piece(message, secrets))
    return out


def _source(source: ProjectionSource, secrets: tuple[str, ...]) -> _Piece:
    """A source's piece: by the object itself when it was seen before (a raw message's source is one frozen
    value per message id, shared by every request that shows it: ``protocols._mapping``), else by its fields."""
    seen = _SOURCES.get(id(source))
    if seen is not None and seen[0] is source and seen[1] == secrets:
        return seen[2]
    key = (secrets, "source", source.type, source.message_ids, source.fold_id, source.session_id, source.window_id,
           source.first_index, source.last_index)
    piece = _PIECES.get(key)
    if piece is None:
        wire = source.wire()
        plain = _dumps(wire)
        piece = _remember(key, _Piece(plain, _dumps(wire, True), needs_no_redaction(plain, secrets)))
    with _LOCK:  # held with its piece, so its id is not reused while it is kept
        if len(_SOURCES) >= _MAX:
            _SOURCES.pop(next(iter(_SOURCES)))
        _SOURCES[id(source)] = (source, secrets, piece)
    return piece


_KEYS: dict[str, str] = {}
"""A key's JSON text followed by ``": "``, by key (a request's and a snapshot's keys recur in every call)."""


def _obj(items: list[tuple[str, str]]) -> str:
    keys = _KEYS
    if len(keys) >= 4096:
        keys.clear()
    out = []
    for key, text in items:
        written = keys.get(key)
        if written is None:
            written = keys[key] = _dumps(key) + ": "
        out.append(written + text)
    return "{" + ", ".join(out) + "}"


def _same_messages(body: Any, request: EncodedRequest) -> bool:
    """Whether a provider body's ``messages`` are the request's, exactly as JSON writes them: equal dicts (the
    request's of text values only, so every value is equal in type too) with their keys in the same order."""
    mine = request.messages
    return (request.textual and type(body) is list and len(body) == len(mine) and body == mine
            and all([type(m) is dict for m in body]) and [*map(tuple, body)] == [*map(tuple, mine)])


def _encode(obj: dict[str, Any], secrets: tuple[str, ...], tools_json: str | None = None, sort: bool = True,
            pieces: list[_Piece] | None = None, like: EncodedRequest | None = None,
            messages_text: str | None = None) -> tuple[str, str, bool]:
    """A request-like object's JSON as written and with sorted keys (its ``messages`` and ``tools`` joined from
    pieces; ``tools_json`` the tools' JSON as written, when the caller has it), and whether redaction leaves it
    as it is. ``pieces``: its messages' pieces (``message_pieces``), when the caller has them. Without ``sort``
    the sorted text is left empty (a snapshot's provider body needs none). ``like``: a request whose messages'
    text is taken when these messages are the same (``_same_messages``); ``messages_text``: the text of
    ``pieces`` joined, when the caller has it."""
    plain: dict[str, str] = {}
    ordered: dict[str, str] = {}
    clean = True
    small: list[str] = list(obj)
    for key, value in obj.items():
        if key == "messages" and like is not None and like.secrets == secrets and _same_messages(value, like):
            plain[key], ordered[key] = like.messages_text, ""
            clean = clean and like.messages_clean
        elif key == "messages" and type(value) is list:
            parts = pieces if pieces is not None else message_pieces(value, secrets)
            plain[key] = messages_text or "[" + ", ".join([p.plain for p in parts]) + "]"
            ordered[key] = "[" + ", ".join([p.ordered for p in parts]) + "]" if sort else ""
            clean = clean and all([p.clean for p in parts])
        elif key == "tools" and value:
            tools = _piece(value, secrets, tools_json)
            plain[key], ordered[key] = tools.plain, tools.ordered
            clean = clean and tools.clean
        else:
            plain[key] = _dumps(value)
            ordered[key] = _dumps(value, True) if sort else ""
            small.append(plain[key])
    clean = clean and needs_no_redaction("\n".join(small), secrets)
    return _obj(list(plain.items())), _obj([(k, ordered[k]) for k in sorted(ordered)]) if sort else "", clean


class EncodedRequest:
    """A call's request encoded once, before the call: ``sha256`` (``requestSha256``: SHA-256 of its JSON with
    sorted keys) and ``text`` (its JSON as written, for the snapshot); its ``messages`` with their text and
    whether redaction leaves them as they are, for a provider body that sends the same ones."""

    def __init__(self, request: dict[str, Any], secrets: tuple[str, ...], tools_json: str | None = None,
                 pieces: list[_Piece] | None = None) -> None:
        """``tools_json``: ``json.dumps(request["tools"], ensure_ascii=False)``, when the caller has it; ``pieces``:
        ``message_pieces(request["messages"], secrets)``, when the caller has them."""
        messages = request.get("messages")
        self.messages: list[Any] = messages if type(messages) is list else []
        if type(messages) is list and pieces is None:
            pieces = message_pieces(messages, secrets)
        self.textual = type(messages) is list and all([p.textual for p in pieces or ()])  # keyed by their items
        self.secrets = secrets
        self.messages_text = "[" + ", ".join([p.plain for p in pieces or ()]) + "]"
        self.messages_clean = all([p.clean for p in pieces or ()])
        self.text, ordered, self.clean = _encode(request, secrets, tools_json, pieces=pieces,
                                                 messages_text=self.messages_text)
        self.sha256 = hashlib.sha256(ordered.encode()).hexdigest()


_PART = "\x00snapshot part %d\x00"
"""A stand-in for a snapshot's value whose text is joined from pieces, in the one encoding of the rest
(``snapshot_json``); its JSON text (``"\\u0000snapshot part 0\\u0000"``) is spliced out again when it occurs
exactly once, else the snapshot is joined value by value."""
_PARTS = [(_PART % n, _dumps(_PART % n)) for n in range(4)]


def _spliced(rest: str, joined: list[tuple[str, str]]) -> str | None:
    """``rest`` with the n-th stand-in's text replaced by the n-th joined text; None when a stand-in's text is
    not there exactly once (a value holds it: the snapshot is then written value by value)."""
    spans = []
    for n, (_, text) in enumerate(joined):
        stand_in = _PARTS[n][1]
        at = rest.find(stand_in)
        if at < 0 or rest.find(stand_in, at + 1) >= 0:
            return None
        spans.append((at, at + len(stand_in), text))
    out, last = [], 0
    for start, end, text in sorted(spans):
        out += [rest[last:start], text]
        last = end
    out.append(rest[last:])
    return "".join(out)


def snapshot_json(data: dict[str, Any], sources: list[ProjectionSource] | None, secrets: tuple[str, ...],
                  request: EncodedRequest | None = None) -> str:
    """``json.dumps(redact(snapshot))`` of ``data`` with ``sources`` as its ``sources`` (their wire form) and,
    given ``request``, that encoding as its ``request``; ``providerRequest`` as it is when it is the body's JSON
    text, else joined from pieces as well (its messages' text the request's when they are the same). The other
    values are written by one encoding of ``data`` with a stand-in (``_PART``) for each joined value, instead of
    one per value. When anything in it could need redacting, the whole text is redacted by the walk
    (``redacted_json``)."""
    joined: list[tuple[str, str]] = []
    rest: dict[str, Any] = {}
    clean = True
    for key, value in data.items():
        if key == "request" and request is not None:
            text, clean = request.text, clean and request.clean
        elif key == "providerRequest" and type(value) is str:  # the body as text (ModelOutput.provider_request_json)
            text = value
            clean = clean and needs_no_redaction(value, secrets)
        elif key == "providerRequest" and type(value) is dict:
            text, _, body_clean = _encode(value, secrets, sort=False, like=request)
            clean = clean and body_clean
        elif key == "sources" and sources is not None:
            pieces = [_source(s, secrets) for s in sources]
            text = "[" + ", ".join([p.plain for p in pieces]) + "]"
            clean = clean and all([p.clean for p in pieces])
        else:
            rest[key] = value
            continue
        rest[key] = _PARTS[len(joined)][0]
        joined.append((key, text))
    whole = _dumps(rest)
    # the rest's keys and values are checked in its text: a match across an item's bounds only sends it to the walk
    clean = clean and needs_no_redaction(whole, secrets)
    texts = dict(joined)
    whole = _spliced(whole, joined) or _obj([(k, texts[k] if k in texts else _dumps(v)) for k, v in data.items()])
    if clean:
        return whole
    return redacted_json(json.loads(whole), secrets)  # the walk on its JSON form writes what it writes on data
