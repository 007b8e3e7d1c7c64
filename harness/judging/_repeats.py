"""Repeated tool calls and duplicate signatures within one trial (X-50).

A call's *signature* is its tool name and canonical arguments (sorted keys, ``purpose`` removed;
arguments that are not a JSON object are kept as their raw text). A call is a *duplicate
signature* when an earlier call of the trial had the same signature, whatever its result; it is
*repeated* when, in addition, that earlier call succeeded with the same result digest: the model
learned nothing new.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from harness.engine import ToolCallRecord
from protocols import JsonRejected, canonical_json, loads_strict


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_arguments(arguments: str) -> str:
    try:
        value: Any = loads_strict(arguments)
    except (JsonRejected, TypeError):  # the model's malformed arguments are compared as written
        return arguments
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "purpose"}
    return canonical_json(value)


def result_digest(result: dict[str, Any]) -> str:
    return sha256_text(canonical_json(result))


@dataclass(frozen=True)
class CallMark:
    """The X-50 marks of one tool call, in trial order."""

    turn: int
    step: int
    call_id: str
    name: str
    args_sha256: str
    result_sha256: str
    success: bool
    error_code: str | None
    repeated: bool
    duplicate_signature: bool


def mark_calls(turns: list[list[ToolCallRecord]]) -> list[CallMark]:
    """Marks for every executed call of a trial (extra calls of a step answered
    ``tool_call_limit_exceeded`` were never executed and are not compared)."""
    seen: set[tuple[str, str]] = set()
    learned: set[tuple[str, str, str]] = set()
    out: list[CallMark] = []
    for turn, calls in enumerate(turns, start=1):
        for call in calls:
            if not call.executed:
                continue
            signature = (call.name, canonical_arguments(call.arguments))
            digest = result_digest(call.result)
            duplicate = signature in seen
            repeated = (*signature, digest) in learned
            seen.add(signature)
            if call.success:
                learned.add((*signature, digest))
            out.append(CallMark(turn=turn, step=call.step, call_id=call.call_id, name=call.name,
                                args_sha256=sha256_text(signature[1]),
                                result_sha256=digest, success=call.success, error_code=call.error_code,
                                repeated=repeated, duplicate_signature=duplicate))
    return out
