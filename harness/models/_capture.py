"""Capture of the provider-level request body (E-11) through a litellm ``CustomLogger``.

litellm hands ``log_pre_api_call`` the body it is about to send
(``kwargs["additional_args"]["complete_input_dict"]``) next to the raw API key; only the body is
copied, as its JSON text (``ensure_ascii=False``, odd leaves stringified: ``body_text``), keyed by the
``litellm_call_id`` the adapter chose for that attempt. The adapter redacts it as text
(``redacted_json_text``): the text is encoded once and scanned once, and a clean body is neither decoded
nor walked; it reaches the snapshot as it is.
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
        self._bodies: dict[str, str] = {}
        self._lock = threading.Lock()

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        call_id = kwargs.get("litellm_call_id")
        body = (kwargs.get("additional_args") or {}).get("complete_input_dict")
        if not isinstance(call_id, str) or not isinstance(body, dict):
            return
        # The JSON text detaches the copy from litellm's objects (and stringifies odd leaves).
        text = body_text(body)
        with self._lock:
            self._bodies[call_id] = text

    def pop(self, call_id: str) -> str | None:
        """The body's JSON text (``ensure_ascii=False``), unredacted: redact it with ``redacted_json_text``."""
        with self._lock:
            return self._bodies.pop(call_id, None)



def body_text(body: dict[Any, Any]) -> str:
    """``json.dumps(body, default=str, ensure_ascii=False)``, byte for byte, its ``tools`` and each message of text
    values written once per content (E-11): a run sends the same schemas and history in every call (py-spy of Q-3:
    the tools were three quarters of this encoding). A dict's JSON is its items' joined (``"key": value``, ", "
    between them) and a list's its items' (", "), so each is encoded alone."""
    if not all([type(key) is str for key in body]):  # a key JSON writes otherwise: the whole dict at once
        return _dumps(body)
    items = []
    for key, value in body.items():
        if key == "tools" and type(value) is list and value:
            text = _tools_text(value)
        elif key == "messages" and type(value) is list:
            text = "[" + ", ".join([_message_text(m) for m in value]) + "]"
        else:
            text = _dumps(value)
        items.append(_dumps(key) + ": " + text)
    return "{" + ", ".join(items) + "}"


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


_TOOLS: dict[bytes, str] = {}
_MESSAGES: dict[tuple[Any, ...], str] = {}
_LOCK = threading.Lock()


def _message_text(message: Any) -> str:
    """A message's JSON text; one of text values (exact ``str`` keys, ``str`` or None values) kept by its items."""
    if type(message) is not dict or not all([type(k) is str and (v is None or type(v) is str)
                                             for k, v in message.items()]):
        return _dumps(message)
    items = tuple(message.items())
    text = _MESSAGES.get(items)
    if text is None:
        text = _dumps(message)
        with _LOCK:  # the capture runs in litellm's threads as well
            if len(_MESSAGES) >= 4096:  # the oldest goes first
                del _MESSAGES[next(iter(_MESSAGES))]
            _MESSAGES[items] = text
    return text


def _tools_text(tools: list[Any]) -> str:
    """The tools' JSON text, kept by their ``marshal`` bytes (exact types only: equal bytes are equal values of
    the same types, written alike); tools marshal refuses (an object, a subclass) are encoded every time."""
    try:
        key = marshal.dumps(tools)
    except ValueError:
        return _dumps(tools)
    text = _TOOLS.get(key)
    if text is None:
        text = _dumps(tools)
        with _LOCK:
            if len(_TOOLS) >= 64:  # the oldest goes first
                del _TOOLS[next(iter(_TOOLS))]
            _TOOLS[key] = text
    return text
