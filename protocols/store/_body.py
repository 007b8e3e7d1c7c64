"""A SQLite row's message body (E-8, P-1, P-2): validating an appended draft into its raw message, writing the
message's JSON body, and decoding a stored body once.

``written`` validates every appended message (P-1, P-2: the same ``RawMessage`` validation of the same field
values as ``RawMessage.model_validate({**draft.model_dump(), "id": …, "index": …})``, so it refuses what that
refuses) and writes its body, the JSON object that ``json.loads`` reads back as ``msg.wire()``. For a message of
text content without reasoning (every field a str, an int, None or a frozen model of those: the assistant's and
the tools' messages of a tool loop) both are made without the generic copy and walk: the validator is given the
draft's fields (its tool calls' and frozen view's as their own fields, validated again) and pydantic writes the
body (``model_dump_json``: the same object, compact separators). Any other message takes the generic path
(tests/protocols/store/test_store_body.py compares both on generated messages).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from .._messages import FrozenView, MessageDraft, RawMessage, ToolCall
from .._text import json_text

_DECODED: dict[str, RawMessage] = {}
"""Stored bodies and their messages, oldest first (bounded by ``_DECODED_MAX``)."""
_DECODED_MAX = 32768
_DECODED_LOCK = threading.Lock()
_VALIDATE = RawMessage.__pydantic_validator__.validate_python


def message(body: str) -> RawMessage:
    """A stored message, decoded once: raw messages are immutable (P-1), so every later read of the
    same row (each step projects the whole window again, Q-2) shares the frozen value. A row this
    process wrote is known from ``append`` (validated there), so it is never decoded at all."""
    msg = _DECODED.get(body)
    if msg is None:
        msg = RawMessage.model_validate(json.loads(body))
        remember(body, msg)
    return msg


def remember(body: str, msg: RawMessage) -> None:
    with _DECODED_LOCK:
        if len(_DECODED) >= _DECODED_MAX:  # the oldest entry goes first
            _DECODED.pop(next(iter(_DECODED)))
        _DECODED[body] = msg


def as_read(msg: RawMessage, body: str) -> RawMessage:
    """The message a read of ``body`` gives: ``msg`` itself when its JSON round trip is the identity
    (text content, no reasoning: every field a str, int, None or a model of those), else the round
    trip (a list content or reasoning may hold tuples, which a read gives back as lists)."""
    if isinstance(msg.content, str) and msg.reasoning is None:
        return msg
    return RawMessage.model_validate(json.loads(body))


def written(draft: MessageDraft, msg_id: str, index: int) -> tuple[RawMessage, str]:
    """The raw message an append of ``draft`` writes, validated (P-1, P-2), and its JSON body."""
    fields = _text_fields(draft)
    if fields is None:
        msg = RawMessage.model_validate({**draft.model_dump(), "id": msg_id, "index": index})
        return msg, json_text(msg.wire())
    fields["id"], fields["index"] = msg_id, index
    msg = _VALIDATE(fields)
    try:
        return msg, msg.model_dump_json(by_alias=True, exclude_none=True)
    except ValueError:  # a lone surrogate: the generic text, which the database refuses as it always did
        return msg, json_text(msg.wire())


def _text_fields(draft: MessageDraft) -> dict[str, Any] | None:
    """A text message's field values as ``model_dump`` gives them (nested models as their fields), or None
    for any other draft (list content, reasoning, or a value of another type than validation makes)."""
    if type(draft.content) is not str or draft.reasoning is not None:
        return None
    fields = dict(draft.__dict__)
    calls, view = fields.get("tool_calls"), fields.get("frozen_view")
    if calls is not None:
        if type(calls) is not tuple or not all([type(c) is ToolCall for c in calls]):
            return None
        fields["tool_calls"] = [dict(c.__dict__) for c in calls]
    if view is not None:
        if type(view) is not FrozenView:
            return None
        fields["frozen_view"] = dict(view.__dict__)
    return fields
