"""Tool results: ``{"success": true, ...}`` or ``{"success": false, "error": {...}}``.

A tool that refuses raises ``ToolRejected``; the dispatcher turns it into a failure result and
stores it as the call's receipt. Refusals are answers to the model, never host defects.
"""

from __future__ import annotations

from typing import Any


class ToolRejected(Exception):
    """A structured refusal: ``code`` plus details that land in ``error`` next to the message."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def result(self) -> dict[str, Any]:
        return failure(self.code, self.message, **self.details)


def success(**fields: Any) -> dict[str, Any]:
    return {"success": True, **fields}


def failure(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message, **details}}


class Write:
    """What a state-changing tool hands the dispatcher: its result and the KV changes to commit
    with it in one transaction (P-42). ``None`` as a value deletes the key."""

    __slots__ = ("changes", "result")

    def __init__(self, result: dict[str, Any], changes: dict[str, Any]) -> None:
        self.result = result
        self.changes = changes


class Compress:
    """What ``context_compress`` hands the dispatcher once its arguments, the frozen revision and the
    expected window are checked: run the bound maintainer on ``window_id`` (P-50 … P-54)."""

    __slots__ = ("window_id",)

    def __init__(self, window_id: str) -> None:
        self.window_id = window_id
