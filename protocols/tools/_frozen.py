"""Tool schemas kept as the code that builds them: every request gets a new, independent list (P-90's tools
at every step, Q-2), its JSON text written once.

A provider adapter may change the tools it is handed in place (litellm does), so no two requests may share a
dict or a list of them. Building the list from its literal is about three times cheaper than ``marshal.loads``
of the same value (and twenty than ``copy.deepcopy``): only the containers are made anew, the strings and
numbers are the constants of the code, which no one can change.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .._text import json_text

_NO_ARGS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


class ToolSchemas:
    """A list of tool schemas (JSON values: dicts with string keys, lists, strings, numbers, booleans, None),
    kept as of when it was given: ``fresh()`` is a new list equal to it (the same types: ``1``, ``1.0`` and
    ``True`` stay apart) whose every dict and list is new; ``json`` is ``json_text`` of it (None if it could not
    be written). A value of any other type, or a list holding itself, is refused (TypeError)."""

    __slots__ = ("_build", "_count", "json")

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        try:
            literal = _literal(tools)
        except RecursionError:
            raise TypeError("tool schemas nest too deep (or hold themselves)") from None
        if not isinstance(literal, ast.List):
            raise TypeError(f"tool schemas are a list, not {type(tools).__name__}")
        code = compile(ast.fix_missing_locations(ast.Expression(ast.Lambda(args=_NO_ARGS, body=literal))),
                       "<tool schemas>", "eval")
        self._build: Callable[[], list[dict[str, Any]]] = eval(code, {"__builtins__": {}})  # noqa: S307 (constants only)
        self._count = len(tools)
        try:
            self.json: str | None = json_text(tools)
        except (TypeError, ValueError):
            self.json = None

    def fresh(self) -> list[dict[str, Any]]:
        return self._build()

    def __len__(self) -> int:
        return self._count


def _literal(value: Any) -> ast.expr:
    kind = type(value)
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise TypeError("a tool schema's keys are strings")
        return ast.Dict(keys=[ast.Constant(key) for key in value], values=[_literal(v) for v in value.values()])
    if kind is list:
        return ast.List(elts=[_literal(v) for v in value], ctx=ast.Load())
    if value is None or kind in (str, int, float, bool):
        return ast.Constant(value)
    raise TypeError(f"a tool schema holds JSON values, not {kind.__name__}")
