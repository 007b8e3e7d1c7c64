"""A trial's snapshots as stored (E-11, O-30), decoded for its judges and call metrics: for every text
``json.loads`` accepts, ``decode_snapshot(text)`` equals ``json.loads(text)`` (values, key order, and each value
written by ``json.dumps`` as the same text).

Most of decoding a snapshot is its tool schemas, written twice (the request's ``tools`` and the provider
body's) and the same text in every call of a run (Q-3: ~70% of ``json.loads`` of a fixed-plan snapshot, and
building their ~600 objects again costs about as much as decoding them). So the value of a ``"tools": `` key
whose JSON text was seen before is neither decoded nor built again: the text is decoded with each such value
written as the constant ``NaN``, and the decoder's ``parse_constant`` gives the value decoded the first time,
one object shared by every snapshot that holds it, made of ``dict`` and ``list`` subclasses that refuse any
change (``TypeError``; a copy is a plain one): a reader that would change a snapshot fails loudly instead of
changing another's. Exact because:

- a remembered text ``V`` is ``json.dumps`` of a list of objects (``[{"k…``) whose first key starts with a
  character that cannot follow a JSON string (``learnable``). In a valid JSON text, an occurrence of ``V``
  cannot begin inside a string (its ``"`` at index 2 is unescaped and would end that string, and ``V[3]``
  cannot follow a string's end), so it begins a value outside strings, and an array's extent is given by
  its own text: the occurrence is that whole value, and ``NaN`` in its place decodes at the same place;
- the decoder meets no other ``NaN``: it calls ``parse_constant`` once for each ``NaN`` outside strings, so one
  that meets more than the values written so (a float written by ``allow_nan``, which would take a tools value's
  place) is thrown away and the text decoded by ``json.loads`` as it is; a ``NaN`` in a string is the string's
  characters, never a constant; ``Infinity`` and ``-Infinity`` decode as ``json.loads`` decodes them.

A text with no remembered value goes to ``json.loads``, and the tool lists it holds are remembered.

The provider body's ``messages`` are most often the request's, the same text: the first ``"messages": `` array is
decoded once and each occurrence of its text after ``"messages": `` is written as the constant ``Infinity``, whose
``parse_constant`` gives that value (read-only when shared, as the tools are); counted like ``NaN``, so a text with
an ``Infinity`` of its own is decoded by ``json.loads`` as it is (``_share_messages`` says why it is exact).

A snapshot given as its UTF-8 (``bytes``, as the store holds it: a transcript writes those bytes as they are) decodes
as its text does: the anchor, ``NaN`` and the remembered text are looked for in the UTF-8, where the ASCII of the
first two occurs only as those characters and a text's UTF-8 occurs only where the text does, and only what is
left after the cut is decoded to text (the tools, most of it, never are).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any, AnyStr, NoReturn

_ANCHOR = '"tools": '
_ANCHOR_UTF8 = _ANCHOR.encode("utf-8")
_BOM_UTF8 = "\ufeff".encode("utf-8")
_MAX = 16
_AFTER_STRING = frozenset(' \t\n\r,:]}')
"""What may follow a JSON string's closing quote (whitespace, a separator, a closer)."""
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError("a decoded snapshot's tools are shared by every snapshot that holds them: read-only")


class ReadOnlyDict(dict[str, Any]):
    """A ``dict`` that refuses changes; ``copy.copy`` / ``copy.deepcopy`` give plain ones."""

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> Any:
        return dict, (dict(self),)


class ReadOnlyList(list[Any]):
    """A ``list`` that refuses changes; ``copy.copy`` / ``copy.deepcopy`` give plain ones."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = _refuse
    pop = remove = reverse = sort = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(value, memo) for value in self]

    def __reduce__(self) -> Any:
        return list, (list(self),)


def read_only(value: Any) -> Any:
    """``value`` (JSON data) built again of ``ReadOnlyDict`` and ``ReadOnlyList``."""
    if isinstance(value, dict):
        return ReadOnlyDict({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return ReadOnlyList([read_only(item) for item in value])
    return value


class _Known:
    """A remembered tools text and its UTF-8, its value (read-only, shared) and a decoder that gives it for ``NaN``,
    counting the ``NaN`` it met (``met``), and for ``Infinity`` the snapshot's messages (``messages``, counted in
    ``met_messages``)."""

    __slots__ = ("text", "utf8", "value", "decoder", "met", "messages", "met_messages")

    def __init__(self, text: str, value: Any) -> None:
        self.text, self.utf8, self.value = text, text.encode("utf-8"), read_only(value)
        self.decoder = json.JSONDecoder(parse_constant=self._constant)
        self.met = self.met_messages = 0
        self.messages: Any = None

    def _constant(self, name: str) -> Any:
        if name == "NaN":
            self.met += 1
            return self.value
        if name == "Infinity":
            self.met_messages += 1
            return self.messages
        return _CONSTANTS[name]


class _Plain:
    """``json.loads`` of a text with no remembered tools, its messages decoded once (``_share_messages``)."""

    def __init__(self) -> None:
        self.decoder = json.JSONDecoder(parse_constant=self._constant)
        self.messages: Any = None
        self.met_messages = 0

    def _constant(self, name: str) -> Any:
        if name == "Infinity":
            self.met_messages += 1
            return self.messages
        return _CONSTANTS[name]

    def decode(self, text: str) -> Any:
        cut, self.messages, shared = _share_messages(text)
        if not shared:
            return json.loads(text)
        self.met_messages = 0
        value = self.decoder.decode(cut)
        if self.met_messages != shared:  # an Infinity of its own: decoded as it is
            return json.loads(text)
        return value


_PLAIN = _Plain()
_KNOWN: list[_Known] = []
"""The remembered tools texts, the most recently used first."""


def decode_snapshots(texts: Sequence[str | bytes]) -> list[dict[str, Any]]:
    """``[json.loads(t) for t in texts]`` (see the module docstring)."""
    return [decode_snapshot(text) for text in texts]


def decode_snapshot(text: str | bytes) -> Any:
    """``json.loads(text)``, a remembered tools value not decoded again (see the module docstring); UTF-8 ``bytes``
    decode as their text does, cut in UTF-8 and only what is left after the cut decoded to text."""
    if isinstance(text, bytes):
        return _decode(text, _ANCHOR_UTF8, _BOM_UTF8)
    return _decode(text, _ANCHOR, "\ufeff")


def _decode(text: AnyStr, anchor: AnyStr, bom: AnyStr) -> Any:
    if anchor not in text or text.startswith(bom):
        return json.loads(_text(text))
    for index, known in enumerate(_KNOWN):
        cut, count = _without(text, known.utf8 if isinstance(text, bytes) else known.text)
        if count:
            if index:
                _KNOWN.insert(0, _KNOWN.pop(index))
            cut_text, known.messages, shared = _share_messages(_text(cut))
            known.met = known.met_messages = 0
            value = known.decoder.decode(cut_text)
            if known.met != count or known.met_messages != shared:  # a NaN or Infinity of its own: decoded as it is
                return json.loads(_text(text))
            return value
    whole = _text(text)
    value = _PLAIN.decode(whole)
    _learn(whole, value)
    return value


def _text(value: str | bytes) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _without(text: AnyStr, known: AnyStr) -> tuple[AnyStr, int]:
    """``text`` with each occurrence of ``known`` after ``"tools": `` written as ``NaN``, and how many there were.
    Alike in UTF-8: the anchor and ``NaN`` are ASCII, whose bytes occur in UTF-8 only as those characters."""
    anchor, nan = (_ANCHOR_UTF8, b"NaN") if isinstance(text, bytes) else (_ANCHOR, "NaN")
    parts: list[AnyStr] = []
    start = 0
    at = text.find(anchor)
    while at >= 0:
        at += len(anchor)
        if text.startswith(known, at):
            parts += (text[start:at], nan)
            start = at + len(known)
            at = text.find(anchor, start)
        else:
            at = text.find(anchor, at)
    if not parts:
        return text, 0
    parts.append(text[start:])
    return text[:0].join(parts), len(parts) // 2


def _share_messages(text: str) -> tuple[str, Any, int]:
    """``text`` with each occurrence of its first ``"messages": `` value's text after ``"messages": `` written as
    ``Infinity``, that value (read-only when it is written more than once) and how many there were; ``text``, None
    and 0 when that value is no array or holds a constant (``NaN``: a tools placeholder; ``Infinity``).

    Exact: ``"messages"`` followed by ``: `` in a valid JSON text is a key (the quote after its letters, unescaped,
    ends the string that holds them), so a value begins after it, outside strings; an array's extent is given by
    its own text, so where the same text begins there it is that whole value; the value it replaces is read by the
    decoder as one value too, and the decoder meets every ``Infinity`` put there (``_decode`` counts them)."""
    at = text.find(_MESSAGES)
    if at < 0:
        return text, None, 0
    at += len(_MESSAGES)
    try:
        value, end = _STRICT.raw_decode(text, at)
    except ValueError:  # a constant in it, or no valid value: the text decoded as it is
        return text, None, 0
    if text[at] != "[":
        return text, None, 0
    written = text[at:end]
    parts = [text[:at], "Infinity"]
    start = end
    at = text.find(_MESSAGES, start)
    while at >= 0:
        at += len(_MESSAGES)
        if text.startswith(written, at):
            parts += (text[start:at], "Infinity")
            start = at + len(written)
            at = text.find(_MESSAGES, start)
        else:
            at = text.find(_MESSAGES, at)
    parts.append(text[start:])
    shared = len(parts) // 2
    return "".join(parts), read_only(value) if shared > 1 else value, shared


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"a constant ({name}) in a snapshot's messages")


_MESSAGES = '"messages": '
_STRICT = json.JSONDecoder(parse_constant=_no_constant)
"""Decodes a snapshot's messages, refusing ``NaN`` (where a tools placeholder stands) and ``Infinity``."""


def learnable(text: str) -> bool:
    """Whether an occurrence of this tools text in a valid JSON text is always a whole value (module docstring)."""
    return len(text) > 3 and text.startswith('[{"') and text[3] not in _AFTER_STRING


def _learn(text: str, snapshot: Any) -> None:
    if not isinstance(snapshot, dict):
        return
    for holder in (snapshot.get("request"), snapshot.get("providerRequest")):
        tools = holder.get("tools") if isinstance(holder, dict) else None
        if not isinstance(tools, list) or not tools:
            continue
        written = json.dumps(tools, ensure_ascii=False)
        if learnable(written) and _ANCHOR + written in text and all(k.text != written for k in _KNOWN):
            _KNOWN.insert(0, _Known(written, tools))
            del _KNOWN[_MAX:]
