"""Strict JSON for every input a user or a model hands the harness: plan files, state files, tool
arguments, ``--option`` values (Q-14).

``json.loads`` alone accepts what later breaks the harness or hides a value: duplicate keys (the
last silently wins), ``NaN``/``Infinity`` and numbers that overflow to infinity (not JSON; they
would be written back as invalid JSON), integers past Python's 4,300-digit conversion limit and
nesting deep enough to exhaust the interpreter's stack (a ``ValueError`` / ``RecursionError``, not
a ``JSONDecodeError``), and lone surrogates (``"\\ud800"``: no UTF-8 encoding exists, so the first
write to a file or SQLite fails). ``loads_strict`` refuses every one of them with ``JsonRejected``
(an ``InvalidInput``), whose message names the problem and, where known, its place. All checks
are linear in the size of the text.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._errors import InvalidInput

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays/objects accepted (a plan needs about 8; tool arguments 2)."""

MAX_INT_DIGITS = 4300
"""Longest integer accepted, in digits (Python's own str→int conversion limit)."""


class JsonRejected(InvalidInput):
    """Text that is not strict JSON; ``reason`` says why, always starting "invalid JSON"."""

    def __init__(self, reason: str) -> None:
        reason = reason if reason.startswith("invalid JSON") else f"invalid JSON: {reason}"
        super().__init__(reason)
        self.reason = reason


def _no_constant(name: str) -> Any:
    raise JsonRejected(f"{name} is not JSON")


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonRejected(f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are accepted")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRejected(f"the number {text[:40]}{'…' if len(text) > 40 else ''} is out of range")
    return value


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(items)
    if len(out) != len(items):  # one set-based pass: linear in the number of keys
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                raise JsonRejected(f"duplicate key {key!r} (a JSON object names each key once)")
            seen.add(key)
    return out


def loads_strict(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse ``text`` as strict JSON (see the module doc); raises ``JsonRejected``."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_int=_parse_int, parse_float=_parse_float,
                           object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise JsonRejected(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise JsonRejected(f"nested deeper than {max_depth} levels") from None
    except UnicodeDecodeError as exc:
        raise JsonRejected(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except ValueError as exc:  # int() past sys.get_int_max_str_digits(), should the limit differ
        raise JsonRejected(str(exc).split(";")[0]) from None
    check_value(value, max_depth)
    return value


def check_value(value: Any, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Depth and Unicode of already-parsed JSON, walked without recursion; raises ``JsonRejected``."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "$")]
    while stack:
        node, depth, where = stack.pop()
        if isinstance(node, str):
            _check_text(node, where)
        elif isinstance(node, dict | list):
            if depth >= max_depth:
                raise JsonRejected(f"nested deeper than {max_depth} levels at {where}")
            if isinstance(node, dict):
                for key, item in node.items():
                    _check_text(key, where)
                    stack.append((item, depth + 1, f"{where}.{key}" if key.isidentifier() else f"{where}[{key!r}]"))
            else:
                stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(node))


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise JsonRejected(f"{where}: a lone surrogate \\u{code:04x} is not Unicode text") from None

