"""Redaction of secrets from anything the harness writes (O-30, Q-20).

Three layers, because any one alone misses something:
1. values under credential-like keys (``api_key``, ``Authorization``, ...) are replaced whole;
2. every occurrence of a known secret (the key in use, secret-looking environment values) is
   replaced inside any string, wherever it sits;
3. bearer tokens and well-known API-key shapes (``sk-...``) are replaced by pattern.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from protocols._text import json_text

REDACTED = "[REDACTED]"

_SENSITIVE_KEYS = re.compile(
    r"^(api[-_]?key|x[-_]api[-_]key|authorization|proxy[-_]authorization|access[-_]?token|"
    r"refresh[-_]?token|auth[-_]?token|bearer|password|secret|client[-_]secret|"
    r"aws[-_]secret[-_]access[-_]key|aws[-_]session[-_]token|azure[-_]ad[-_]token|"
    r"x[-_]goog[-_]api[-_]key|cookie|set[-_]cookie)$",
    re.IGNORECASE,
)
_PATTERNS = (
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
)
_SECRET_ENV_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
_MIN_SECRET_LEN = 8  # shorter values ("1", "true") would shred ordinary text


def secrets_from_env(environ: Mapping[str, str] | None = None) -> set[str]:
    """Values of environment variables whose names look like credentials.

    ``os.environ`` (the default) is scanned again only when it changed: its encoded items (``os.environ._data``,
    every change through ``os.environ`` goes there) are compared with those of the last scan, a tuple of the
    same objects when nothing changed (a scan decodes and matches every variable: 1.7 % of the runner's own
    CPU per model call, py-spy of Q-3)."""
    if environ is not None:
        return _scan(environ)
    data = getattr(os.environ, "_data", None)
    if type(data) is not dict:  # not CPython's os.environ: scan every time
        return _scan(os.environ)
    items = tuple(data.items())
    global _ENV_SCANNED
    scanned = _ENV_SCANNED
    if scanned is None or scanned[0] != items:
        scanned = _ENV_SCANNED = (items, frozenset(_scan(os.environ)))
    return set(scanned[1])


_ENV_SCANNED: tuple[tuple[Any, ...], frozenset[str]] | None = None
"""``os.environ``'s encoded items at the last scan, and the secrets it found."""


def _scan(env: Mapping[str, str]) -> set[str]:
    return {v for k, v in env.items() if _SECRET_ENV_NAME.search(k) and len(v) >= _MIN_SECRET_LEN}


def _prepared(secrets: Iterable[str]) -> tuple[str, ...]:
    """Secrets worth replacing, longest first (so a secret containing another is replaced whole)."""
    return tuple(sorted({s for s in secrets if s and len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True))


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    return _redact_prepared(text, _prepared(secrets))


def _redact_prepared(text: str, secrets: tuple[str, ...]) -> str:
    # Most strings hold none of the patterns' literal parts (ids, role names, ordinary text): they are
    # returned as they are without running a regex (Q-2: a request's sources alone hold hundreds).
    if "sk-" in text or "AIza" in text or "bearer" in text.lower() or any(s in text for s in secrets):
        return _redact_cached(text, secrets)
    return text


@lru_cache(maxsize=8192)
def _redact_cached(text: str, secrets: tuple[str, ...]) -> str:
    # cached: a session's history strings recur in every later request and snapshot
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        if pattern.pattern.startswith("(?i)\\bbearer"):
            text = pattern.sub(f"Bearer {REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


def redact(obj: Any, secrets: Iterable[str] | None = None) -> Any:
    """A redacted deep copy of ``obj`` (dicts, lists, tuples, strings; other leaves kept).

    ``secrets`` defaults to :func:`secrets_from_env`; pass the key in use as well when it did not
    come from the environment.
    """
    known = _prepared(secrets_from_env() if secrets is None else secrets)
    return _walk(obj, known)


def redacted_json(obj: Any, secrets: Iterable[str] | None = None) -> str:
    """``json.dumps(redact(obj, secrets), ensure_ascii=False)``, encoding ``obj`` once when nothing in it
    needs redacting (Q-2: a snapshot holds a whole request twice, thousands of strings).

    The walk of ``redact`` changes a string only after one of its literal tests passes (``sk-``, ``AIza``,
    ``bearer`` in the lowered string, a known secret) and a value only under a key ``_SENSITIVE_KEYS``
    matches. ``_clean`` makes the same tests on the whole JSON text, where every key and string of
    ``obj`` stands character by character (JSON escapes a character alone, and no literal holds one
    it escapes): when none passes, ``redact(obj)`` writes exactly this text. Otherwise (a trigger,
    maybe a false one across two strings) ``obj`` is redacted as ``redact`` does and encoded again."""
    known = _prepared(secrets_from_env() if secrets is None else secrets)
    text = _json_or_none(obj)
    if text is not None and _clean(text, known):
        return text
    return json.dumps(_walk(obj, known), ensure_ascii=False)


def redacted_from_json(text: str, secrets: Iterable[str] | None = None) -> Any:
    """``redact(json.loads(text), secrets)`` for JSON text written with ``ensure_ascii=False``, without the
    walk when the text passes none of its tests (``_clean``, as in ``redacted_json``): the decoded value is
    then a fresh copy that the walk would have returned unchanged."""
    known = _prepared(secrets_from_env() if secrets is None else secrets)
    obj = json.loads(text)
    return obj if _clean(text, known) else _walk(obj, known)


def redacted_json_text(text: str, secrets: Iterable[str] | None = None, pieces: Sequence[str] | None = None) -> str:
    """``json.dumps(redacted_from_json(text, secrets), ensure_ascii=False)`` for JSON text written with
    ``ensure_ascii=False`` and the default separators (the capture's provider body): the text itself, neither
    decoded nor encoded, when it passes none of the walk's tests (``_clean``), as JSON writes a decoded value
    back byte for byte (its keys each once: a body is a dict's text); else the walk's redacted value, encoded.

    ``pieces``: the texts ``text`` joins, each key (with its ``":``) and string of it whole in one of them (the
    capture's ``body_pieces``); the text is then clean when its pieces are (``_clean_pieces``)."""
    known = _prepared(secrets_from_env() if secrets is None else secrets)
    if _clean(text, known) if pieces is None else _clean_pieces(pieces, known):
        _remember_scanned(text, frozenset(known))
        return text
    return json.dumps(_walk(json.loads(text), known), ensure_ascii=False)


def _remember_scanned(text: str, secrets: frozenset[str]) -> None:
    if len(_SCANNED) >= 64:  # the oldest goes first
        _SCANNED.pop(next(iter(_SCANNED)), None)
    _SCANNED[id(text)] = (text, secrets)


def scanned_clean(text: str | None) -> bool:
    """Whether ``redacted_json_text`` found this very text clean: it passed every test of the scan."""
    scanned = None if text is None else _SCANNED.get(id(text))
    return scanned is not None and scanned[0] is text


def mark_scanned(text: str) -> None:
    """This very text passed every test of the scan but the secrets', in another process (a model worker's
    ``scanned_clean``, sent with its output): ``needs_no_redaction`` of it looks only for the secrets it is given."""
    _remember_scanned(text, frozenset())


_SCANNED: dict[int, tuple[str, frozenset[str]]] = {}
"""Texts ``redacted_json_text`` found clean, by identity (each held, so its id is not reused while it is kept),
with the secrets they hold none of: the engine's snapshot asks ``needs_no_redaction`` of that very text."""


def redact_owned(obj: Any, secrets: Iterable[str] | None = None) -> Any:
    """``redact(obj, secrets)`` for a value the caller owns alone (e.g. a fresh ``model_dump``): ``obj``
    itself when its JSON text passes none of the walk's tests (``_clean``), else the walk's redacted copy."""
    known = _prepared(secrets_from_env() if secrets is None else secrets)
    text = _json_or_none(obj)
    return obj if text is not None and _clean(text, known) else _walk(obj, known)


def _json_or_none(obj: Any) -> str | None:
    """``obj``'s JSON text (``ensure_ascii=False``), or None when JSON cannot write it (the walk then decides)."""
    try:
        return json_text(obj)
    except (TypeError, ValueError):
        return None


_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
"""The only characters beyond ASCII that a case-insensitive ``re`` matches to an ASCII letter (İ, ı: i;
ſ: s; K: k); tests/harness/models/test_redact.py finds them again among all of Unicode."""
_SENSITIVE_KEY_IN_JSON = re.compile(b'"(?:' + _SENSITIVE_KEYS.pattern[2:-2].encode() + b')":')
"""A key ``_SENSITIVE_KEYS`` matches, as it stands in lowered JSON text (``"api_key":``): its alternatives are
lowercase ASCII without a quote, so in the text they sit between a quote and ``":``. One search of the whole
text (a request's tool schemas hold dozens of ``"description":`` that a per-ending scan decoded one by one);
an escaped quote before a name (``"x\\"api_key":``) matches too, and the walk then decides, as before."""


def needs_no_redaction(text: str, secrets: Iterable[str] = ()) -> bool:
    """Whether ``redact`` of the value this JSON text encodes (``ensure_ascii=False``) would leave it as it is,
    with these known secrets: no key or string in it passes any test of the walk (``redacted_json``). For the
    very text ``redacted_json_text`` found clean (a provider body, asked again by its snapshot) only the secrets
    it was not scanned for are looked for: it passed every other test (py-spy of Q-3: the snapshot's
    re-encoding of the body was 7 % of the runner's own CPU per call)."""
    known = _prepared(secrets)
    scanned = _SCANNED.get(id(text))
    if scanned is not None and scanned[0] is text:
        return not any(_escaped(s) in text for s in known if s not in scanned[1])
    return _clean(text, known)


def _clean(text: str, secrets: tuple[str, ...]) -> bool:
    """No key or string in this JSON text passes a test of the walk (``redacted_json``).

    The literal tests are made on the text itself (a substring of the text is one of its UTF-8 bytes and back),
    the four characters that fold to ASCII letters only when the text is not ASCII; ``bearer`` and the keys in
    the UTF-8 bytes lowered: ``bytes.lower`` lowers exactly the ASCII letters, which is all ``str.lower`` can
    turn into ``bearer`` (İ and K lower to an ``i``, a ``k``). The text is encoded only when the secret-free
    tests pass (O-30; py-spy of Q-3: this scan of a provider body was 2.3 % of the runner's own CPU per call)."""
    if "sk-" in text or "AIza" in text:
        return False
    for secret in secrets:
        if _escaped(secret) in text:
            return False
    if not text.isascii():
        for c in _FOLDS_TO_ASCII:  # a key could match _SENSITIVE_KEYS through one
            if c in text:
                return False
    low = text.encode().lower()
    return b"bearer" not in low and _SENSITIVE_KEY_IN_JSON.search(low) is None


def _clean_pieces(pieces: Sequence[str], secrets: tuple[str, ...]) -> bool:
    """``_clean`` of the text these pieces join, where every key (with the ``":`` after it) and every string of it
    stands whole in one piece: each test of the walk then looks at one piece, so the text is clean when every piece
    is. A piece found clean before with the same secrets is not scanned again (a run's tool schemas and history
    recur in every body, as the same text objects: py-spy of Q-3, the scan of the whole body was 5 % of the
    runner's own CPU per call); the others are scanned as one text, joined by newlines: every test is a search for
    a substring or an unanchored pattern, so one that passes in a piece passes in the joined text too, and a clean
    join is clean pieces (a test passing only across a join is a false alarm: the walk decides, as before)."""
    fresh = [piece for piece in pieces if len(piece) < _KEPT_PIECE or (piece, secrets) not in _CLEAN_PIECES]
    if not _clean("\n".join(fresh), secrets):
        return False
    kept = [piece for piece in fresh if len(piece) >= _KEPT_PIECE]
    if kept:
        with _PIECES_LOCK:  # model workers' and tests' threads redact too
            for piece in kept:
                if len(_CLEAN_PIECES) >= 8192:  # the oldest goes first
                    del _CLEAN_PIECES[next(iter(_CLEAN_PIECES))]
                _CLEAN_PIECES[(piece, secrets)] = None
    return True


_KEPT_PIECE = 128
"""Pieces shorter than this (separators, keys, small values) are scanned every time, never looked up."""
_CLEAN_PIECES: dict[tuple[str, tuple[str, ...]], None] = {}
"""Pieces ``_clean`` passed, with the secrets they were scanned for."""
_PIECES_LOCK = threading.Lock()


@lru_cache(maxsize=256)
def _escaped(secret: str) -> str:
    """A secret as it stands in JSON text (ensure_ascii=False)."""
    return json.dumps(secret, ensure_ascii=False)[1:-1]


def _walk(obj: Any, secrets: tuple[str, ...]) -> Any:
    # Exact types first: a request's thousands of leaves are str, dict, list, int or None, and an ABC
    # isinstance (Mapping) on each cost more than the redaction itself.
    if isinstance(obj, str):
        return _redact_prepared(obj, secrets)
    if obj is None or type(obj) in _SCALARS:
        return obj
    if isinstance(obj, Mapping):
        out: dict[Any, Any] = {}
        for key, value in obj.items():
            if isinstance(key, str) and _sensitive(key) and value not in (None, ""):
                out[key] = REDACTED
            elif key == "tools" and type(value) is list:
                out[key] = _tools(value, secrets)
            else:
                out[key] = _walk(value, secrets)
        return out
    if isinstance(obj, list | tuple):
        items = [_walk(v, secrets) for v in obj]
        return items if isinstance(obj, list) else tuple(items)
    return obj


_SCALARS = frozenset({int, float, bool})


def _tools(tools: list[Any], secrets: tuple[str, ...]) -> Any:
    """A request's tool schemas: the same few hundred nodes in every request, snapshot and provider body
    of a run (80 % of a fixed-plan snapshot's nodes), redacted once per content (their JSON text) and
    shared, in their JSON form (a tuple comes back as a list): what the harness writes is JSON, and
    nothing changes a redacted schema afterwards. Tools JSON cannot write are walked as usual."""
    text = _json_or_none(tools)
    return _walk(tools, secrets) if text is None else _redacted_json(text, secrets)


@lru_cache(maxsize=64)
def _redacted_json(text: str, secrets: tuple[str, ...]) -> Any:
    return _walk(json.loads(text), secrets)


@lru_cache(maxsize=4096)
def _sensitive(key: str) -> bool:
    """Whether a key holds a credential (``_SENSITIVE_KEYS``); a request repeats a few keys thousands of times."""
    return _SENSITIVE_KEYS.match(key) is not None


@lru_cache(maxsize=64)
def public_api_base(api_base: str | None) -> str | None:
    """An API base URL without user info or key/token query parameters: safe to write anywhere (O-30)."""
    if api_base is None:
        return None
    parts = urlsplit(api_base)
    netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query)
                       if "key" not in k.lower() and "token" not in k.lower()])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
