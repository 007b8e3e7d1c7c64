"""Spotting answers that look like tool calls the serving stack did not parse (E-6, O-24).

Small open models often write a tool call as JSON text in their answer instead of in their chat
template's tool-call format; a server then returns it as plain content. The agent loop keeps such
text as the final answer (model output is never repaired); this check only lets a report or the
CLI point it out, because it usually means the model or the serving stack cannot do tool calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_FUNCTIONS_PREFIX = re.compile(r"^\s*functions\.[A-Za-z_][\w\-]*\s*:")  # llama-cpp-python's grammar
_BRACKET_PREFIX = re.compile(r"^\s*\[([A-Za-z_][\w\-]*)\]\s*(?=[{\[])")  # "[quote_calculate] {...}"
DERIVED_TAGS = frozenset({"context_header", "context_fold", "context_state"})
"""Tag lines of the host's derived messages: ``[context_state]`` then JSON is an echo, not a call."""
_WRAPPERS = re.compile(r"</?tool_call>|</?function_call>|```(?:json|tool_code|python)?", re.IGNORECASE)
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_MAX_OBJECTS = 50  # bounds the scan on long answers


def looks_like_unparsed_tool_call(text: str | None, tool_names: Iterable[str] | None = None) -> bool:
    """True when ``text`` holds a JSON tool call: ``{"name": ..., "arguments": {...}}`` and its
    usual variants (``parameters``, an OpenAI ``{"function": {...}}`` or ``{"tool_calls": [...]}``
    object, a list of calls, fenced or wrapped in ``<tool_call>`` tags), or llama-cpp-python's
    ``functions.<name>:`` form, or the tag-line form ``[<name>] {arguments}`` small models copy from
    the host's derived messages (never a derived tag itself). With ``tool_names``, the named
    function must be one of them.
    """
    if not text or not text.strip():
        return False
    names = None if tool_names is None else frozenset(tool_names)
    prefix = _FUNCTIONS_PREFIX.match(text)
    if prefix:
        name = prefix.group(0).strip()[len("functions."):-1].strip()
        return names is None or name in names
    bracket = _BRACKET_PREFIX.match(text)
    if bracket and bracket.group(1) not in DERIVED_TAGS and (names is None or bracket.group(1) in names):
        try:
            value, _ = json.JSONDecoder().raw_decode(text, bracket.end())
        except ValueError:
            value = None
        if isinstance(value, dict):
            return True
    return any(_is_call(obj, names) for obj in _json_values(_WRAPPERS.sub(" ", text)))


def _json_values(text: str) -> Iterable[Any]:
    """Every JSON object or array that starts at a ``{`` or ``[`` in ``text`` and parses."""
    decoder = json.JSONDecoder()
    found, pos = 0, 0
    while found < _MAX_OBJECTS:
        starts = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            pos = start + 1
            continue
        except RecursionError:  # brackets nested past the stack: no tool call; skip the whole run
            pos = start + len(text[start:]) - len(text[start:].lstrip("[{ \t\r\n"))
            continue
        found += 1
        yield value
        pos = end


def _is_call(obj: Any, names: frozenset[str] | None) -> bool:
    if isinstance(obj, list):
        return any(_is_call(item, names) for item in obj[:_MAX_OBJECTS])
    if not isinstance(obj, dict):
        return False
    for key in ("tool_calls", "tool_call", "function_call", "function"):
        if key in obj and _is_call(obj[key], names):
            return True
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return False
    if not any(isinstance(obj.get(k), dict | str) for k in _ARGUMENT_KEYS):
        return False
    return names is None or name in names
