"""Capture of the provider-level request body (E-11) through a litellm ``CustomLogger``.

litellm hands ``log_pre_api_call`` the body it is about to send
(``kwargs["additional_args"]["complete_input_dict"]``) next to the raw API key; only the body is
copied, as its JSON text (``ensure_ascii=False``, odd leaves stringified: ``body_text``) with the pieces it
joins (``body_pieces``), keyed by the ``litellm_call_id`` the adapter chose for that attempt. The adapter redacts
it as text (``redacted_json_text``): the text is encoded once, each piece is scanned once per content, and a clean
body is neither decoded nor walked; it reaches the snapshot as it is.
"""

from __future__ import annotations

import json
import marshal
import threading
from typing import Any

from litellm.integrations.custom_logger import CustomLogger


class RequestCapture(CustomLogger):
    def __init__(self) -> None:
        super().__init__()
        self._bodies: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        call_id = kwargs.get("litellm_call_id")
        body = (kwargs.get("additional_args") or {}).get("complete_input_dict")
        if not isinstance(call_id, str) or not isinstance(body, dict):
            return
        # The JSON text detaches the copy from litellm's objects (and stringifies odd leaves).
        pieces = body_pieces(body)
        text = "".join(pieces)
        with self._lock:
            self._bodies[call_id] = (text, pieces)

    def pop(self, call_id: str) -> str | None:
        """The body's JSON text (``ensure_ascii=False``), unredacted: redact it with ``redacted_json_text``."""
        parts = self.pop_parts(call_id)
        return None if parts is None else parts[0]

    def pop_parts(self, call_id: str) -> tuple[str, tuple[str, ...]] | None:
        """The body's JSON text and the pieces it joins (``body_pieces``): ``redacted_json_text(text, secrets,
        pieces)``."""
        with self._lock:
            return self._bodies.pop(call_id, None)



def body_text(body: dict[Any, Any]) -> str:
    """``json.dumps(body, default=str, ensure_ascii=False)``, byte for byte (``body_pieces`` joined)."""
    return "".join(body_pieces(body))


def body_pieces(body: dict[Any, Any]) -> tuple[str, ...]:
    """The pieces ``json.dumps(body, default=str, ensure_ascii=False)`` is made of, byte for byte when joined, its
    ``tools`` and each message of text values written once per content (E-11): a run sends the same schemas and
    history in every call (py-spy of Q-3: the tools were three quarters of this encoding). A dict's JSON is its
    items' joined (``"key": value``, ", " between them) and a list's its items' (", "), so each is encoded alone.
    Every key of the body (with the ``":`` after it) and every string in it stands whole in one piece, and the
    kept texts are the same objects from call to call: the redaction scans a piece it found clean once no more
    (``redacted_json_text``)."""
    if not all([type(key) is str for key in body]):  # a key JSON writes otherwise: the whole dict at once
        return (_dumps(body),)
    pieces = ["{"]
    for key, value in body.items():
        if len(pieces) > 1:
            pieces.append(", ")
        pieces.append(_key_text(key))
        if key == "tools" and type(value) is list and value:
            pieces.append(_tools_text(value))
        elif key == "messages" and type(value) is list:
            pieces.append("[")
            for i, message in enumerate(value):
                if i:
                    pieces.append(", ")
                pieces.append(_message_text(message))
            pieces.append("]")
        else:
            pieces.append(_value_text(value))
    pieces.append("}")
    return tuple(pieces)


def _dumps(value: Any) -> str:
    """``json.dumps(value, default=str, ensure_ascii=False)``: the same text from an encoder made once (``json.dumps``
    builds one at every call whose options are not its defaults; ``encode`` keeps no state between calls)."""
    return _ENCODER.encode(value)


_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False)


def _key_text(key: str) -> str:
    """``"key": `` for a body's key (an exact ``str``), kept: a body has the same few keys in every call."""
    text = _KEYS.get(key)
    if text is None:
        text = _dumps(key) + ": "
        _keep(_KEYS, key, text, 256)
    return text


def _value_text(value: Any) -> str:
    """A body's value's JSON text; one of exact type ``str`` (short), ``int``, ``bool`` or None kept by type and
    value (``True`` and ``1`` are equal and written differently; a float's equal values are too: never kept)."""
    kind = type(value)
    if value is None or kind is bool or kind is int or (kind is str and len(value) <= 256):
        return _kept_text(_SCALARS, (kind, value), value, 1024)
    return _dumps(value)


def _kept_text(kept: dict[Any, str], key: Any, value: Any, most: int) -> str:
    """``value``'s JSON text as ``kept`` holds it under ``key``, else encoded and kept (at most ``most``)."""
    text = kept.get(key)
    if text is None:
        text = _dumps(value)
        _keep(kept, key, text, most)
    return text


def _marshal_key(value: Any) -> bytes | None:
    """``value``'s ``marshal`` bytes (equal only for equal values of the same exact types), None if it refuses."""
    try:
        return marshal.dumps(value)
    except ValueError:
        return None


def _keep(kept: dict[Any, str], key: Any, text: str, most: int) -> None:
    with _LOCK:  # the capture runs in litellm's threads as well
        if len(kept) >= most:  # the oldest goes first
            del kept[next(iter(kept))]
        kept[key] = text


_KEYS: dict[str, str] = {}
_SCALARS: dict[tuple[type, Any], str] = {}
_TOOLS: dict[bytes, str] = {}
_MESSAGES: dict[Any, str] = {}
"""By a text message's items (a tuple) or another's marshal bytes: never equal to each other."""
_LOCK = threading.Lock()


def _message_text(message: Any) -> str:
    """A message's JSON text, kept: one of text values (exact ``str`` keys, ``str`` or None values) by its items,
    another (an assistant's ``tool_calls``, a content of parts) by its ``marshal`` bytes, as the tools are (a run's
    history repeats its tool calls in every later body); one marshal refuses is encoded every time."""
    if type(message) is not dict:
        return _dumps(message)
    key: Any
    if all([type(k) is str and (v is None or type(v) is str) for k, v in message.items()]):
        key = tuple(message.items())
    else:
        key = _marshal_key(message)
    return _dumps(message) if key is None else _kept_text(_MESSAGES, key, message, 4096)


def _tools_text(tools: list[Any]) -> str:
    """The tools' JSON text, kept by their ``marshal`` bytes (exact types only: equal bytes are equal values of
    the same types, written alike); tools marshal refuses (an object, a subclass) are encoded every time."""
    key = _marshal_key(tools)
    return _dumps(tools) if key is None else _kept_text(_TOOLS, key, tools, 64)
