"""Token counts with litellm's counter (offline tiktoken), each message counted once per model (Q-2).

``litellm.token_counter(model, messages, tools)`` is a sum: every message's own count, plus one
"extra" for the reply primer and the tool definitions, which depends only on the tools and on whether
a system message is present. A session's history repeats from request to request, so the counts here
are taken one message at a time through the same public ``token_counter`` and cached by model and
content; ``prompt_tokens`` adds them up to exactly what ``token_counter`` says for the whole request
(tests/harness/models/test_tokens.py holds the two equal). The budget's reservation, the request
segments and the scripted provider's usage all read these counts.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import harness


def request_tokens(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """``litellm.token_counter(model=model, messages=messages, tools=tools)``, uncached."""
    # litellm itself, not ``ensure_litellm``: the scripted provider, which ``_setup`` registers, counts
    # with this module (an import circle otherwise); the offline switches are set by ``harness``.
    harness.import_litellm()  # collector paused, then frozen
    import litellm

    litellm.disable_hf_tokenizer_download = True  # as ``_setup`` does: never fetch a tokenizer
    return int(litellm.token_counter(model=model, messages=messages, tools=tools or None))  # type: ignore[arg-type]


def message_tokens(model: str, message: dict[str, Any]) -> int:
    """``token_counter`` of a request holding only ``message``: its own count plus the reply primer."""
    return _one(model, _key(message))


def tools_tokens(model: str, tools: list[dict[str, Any]], tools_json: str | None = None) -> int:
    """``token_counter`` of a request holding only ``tools``, their keys sorted: the request segment
    ``tools`` as it has always been counted (the definitions' count depends on their key order).
    ``tools_json``: ``json.dumps(tools, ensure_ascii=False)`` when the caller has it (Q-2: one encoding
    of a request's tools per step); the count is the same."""
    if not tools:
        return 0
    if tools_json is not None:
        return _tools_sorted(model, tools_json)
    return _tools(model, json.dumps(tools, sort_keys=True, ensure_ascii=False))


def prompt_tokens(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                  tools_json: str | None = None) -> int:
    """Exactly ``request_tokens(model, messages, tools)``, from the cached per-message counts.

    The first system message is counted together with the tools (the tool definitions' count depends on
    whether one is present); every other message adds its own count, the primer taken off.
    ``tools_json``: ``json.dumps(tools, ensure_ascii=False)`` when the caller has it."""
    if not all(isinstance(m, dict) for m in messages):  # not plain JSON messages: count them as they are
        return request_tokens(model, messages, tools)
    primer = _primer(model)
    system = next((i for i, m in enumerate(messages) if m.get("role") == "system"), None)
    if not tools:
        tools_json = ""
    elif tools_json is None:
        tools_json = json.dumps(tools, ensure_ascii=False)  # in order: the count depends on it
    if system is None:
        total = _tools(model, tools_json) if tools else primer
    else:
        total = _with_system(model, _key(messages[system]), tools_json)
    for i, message in enumerate(messages):
        if i != system:
            total += _one(model, _key(message)) - primer
    return total


def _key(message: dict[str, Any]) -> Any:
    """A hashable key of a message's content: its items when their values are hashable (text), else
    its JSON; equal keys mean equal messages."""
    try:
        key = tuple(message.items())
        hash(key)
        return key
    except TypeError:
        return _SORTED.encode(message)  # json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)


_SORTED = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
"""Made once: ``json.dumps`` builds one at every call whose options are not its defaults (the same text)."""


def _message(key: Any) -> dict[str, Any]:
    return dict(key) if isinstance(key, tuple) else dict(json.loads(key))


@lru_cache(maxsize=32768)
def _one(model: str, key: Any) -> int:
    return request_tokens(model, [_message(key)])


@lru_cache(maxsize=64)
def _primer(model: str) -> int:
    return request_tokens(model, [])


@lru_cache(maxsize=256)
def _tools(model: str, tools_json: str) -> int:
    return request_tokens(model, [], json.loads(tools_json))


@lru_cache(maxsize=256)
def _tools_sorted(model: str, tools_json: str) -> int:
    """``tools_tokens`` from the tools' JSON as written: their keys sorted, as the segment counts them."""
    return _tools(model, json.dumps(json.loads(tools_json), sort_keys=True, ensure_ascii=False))


@lru_cache(maxsize=1024)
def _with_system(model: str, system_key: Any, tools_json: str) -> int:
    return request_tokens(model, [_message(system_key)], json.loads(tools_json) if tools_json else None)
