"""The host dispatcher of context tools (P-40 … P-44, P-73, P-74, P-7).

Order of a dispatch:

1. a receipt stored for the call id → returned unchanged, nothing executes (P-42);
2. a name that is not a tool of this protocol → ``unknown_tool``;
3. arguments that are not one strict JSON object (duplicate keys included) → ``invalid_arguments``;
4. v2/v3: a write tool without ``expectedWindowId`` → ``context_window_expectation_required``;
5. schema failure → ``invalid_arguments`` naming the field (strictly typed: ``true`` or ``"5"`` is no integer);
6. execute. Read tools store their receipt without a revision change (P-22). Write tools check the
   frozen revision (``context_state_stale``, P-41) and, on v2/v3, the expected window
   (``context_window_mismatch``, P-74), then commit KV changes and receipt in one transaction.
   ``context_compress`` (offered only with a ``MaintainerBinding``) passes the same checks, then
   runs the bound maintainer (``_compress``).

Authorisation (revision, upper bound, session) comes only from ``frozen`` and the session id (P-40).
Every failure is stored as the call's receipt too, so a replay answers the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ._compress import run_compress
from ._errors import KvLimitExceeded, RevisionConflict
from ._json import JsonRejected, loads_strict
from ._maintenance import MaintainerBinding, MaintenanceResult
from ._messages import FrozenView, ToolCall
from ._version import ProtocolVersion
from .store import SessionStore
from .tools import Compress, ToolContext, ToolRejected, ToolSpec, Write, failure, tool_named, tools_for


@dataclass(frozen=True)
class Dispatched:
    """What the host's dispatcher did with one call."""

    result: dict[str, Any]
    replayed: bool
    """The call id had a receipt: it was returned and nothing ran (P-42)."""
    maintenance: MaintenanceResult | None = None
    """The maintenance a ``context_compress`` call ran (None for every other call and on a replay)."""


def dispatch(
    protocol: ProtocolVersion, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView
) -> dict[str, Any]:
    """Run one tool call without a bound maintainer; returns its result (the stored receipt on a replay)."""
    stored = store.receipt(session_id, call.id)
    if stored is not None:
        return dict(stored)
    result = _execute(protocol, store, session_id, call, frozen, maintainer_bound=False)
    assert not isinstance(result, Compress)  # not offered without a binding
    return result


async def dispatch_bound(
    protocol: ProtocolVersion, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
    binding: MaintainerBinding | None,
) -> Dispatched:
    """The host's dispatch: ``dispatch`` plus ``context_compress`` when the agent has a ``binding``."""
    stored = store.receipt(session_id, call.id)
    if stored is not None:
        return Dispatched(dict(stored), replayed=True)
    result = _execute(protocol, store, session_id, call, frozen, maintainer_bound=binding is not None)
    if isinstance(result, Compress):
        assert binding is not None
        done, outcome = await run_compress(protocol, store, session_id, call, frozen, result.window_id, binding)
        return Dispatched(done, replayed=False, maintenance=outcome)
    return Dispatched(result, replayed=False)


def _execute(
    protocol: ProtocolVersion, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
    *, maintainer_bound: bool,
) -> dict[str, Any] | Compress:
    """Steps 2–6: the result with its receipt stored, or the checked compression still to run."""
    try:
        result = _run(protocol, store, session_id, call, frozen, maintainer_bound)
    except ToolRejected as rejected:
        result = rejected.result()
    if isinstance(result, Compress):
        return result
    if isinstance(result, Write):
        return _commit(store, session_id, call, frozen, result)
    return dict(store.put_receipt(session_id, call.id, result))


def _run(
    protocol: ProtocolVersion, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
    maintainer_bound: bool,
) -> dict[str, Any] | Write | Compress:
    spec = _spec_named(protocol, call.name, maintainer_bound)
    raw = _parse_arguments(call.arguments)
    if spec.requires_expected_window and raw.get("expectedWindowId") is None:
        raise ToolRejected("context_window_expectation_required",
                           f"{spec.name} requires expectedWindowId: the window you believe is active (P-73)")
    try:
        args = spec.args.model_validate(raw)
    except ValidationError as exc:
        raise ToolRejected("invalid_arguments", _describe(exc)) from None
    ctx = ToolContext(protocol, store, session_id, frozen)
    if not spec.writes:
        outcome = spec.handler(ctx, args)
        if isinstance(outcome, Write | Compress):  # a host defect: read tools never change state (P-22)
            raise TypeError(f"read tool {spec.name} returned KV changes")
        return outcome
    current = store.revision(session_id)
    if frozen.revision != current:
        raise _stale(frozen.revision, current)
    expected = getattr(args, "expected_window_id", None)
    if expected is not None and expected != ctx.active_window():
        raise ToolRejected(
            "context_window_mismatch",
            f"expectedWindowId is {expected!r} but the active window is {ctx.active_window()!r}; "
            "nothing was changed",
            currentWindowId=ctx.active_window(),
            stateRevision=current,
        )
    outcome = spec.handler(ctx, args)
    if not isinstance(outcome, Write | Compress):  # a host defect: the receipt must commit with the changes
        raise TypeError(f"write tool {spec.name} returned no KV changes")
    return outcome


def _commit(
    store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView, write: Write
) -> dict[str, Any]:
    try:
        store.commit(session_id, frozen.revision, write.changes, receipt=(call.id, write.result))
    except RevisionConflict as exc:
        result = _stale(frozen.revision, exc.current).result()
    except KvLimitExceeded as exc:
        result = failure("kv_limit_exceeded", f"the write breaks a KV limit: {exc}; nothing was changed")
    else:
        return write.result
    return dict(store.put_receipt(session_id, call.id, result))


def _stale(frozen_revision: int, current: int) -> ToolRejected:
    return ToolRejected(
        "context_state_stale",
        f"this call saw KV revision {frozen_revision}, the state is now at {current}; "
        "look at the current state and call again",
        currentRevision=current,
    )


def _spec_named(protocol: ProtocolVersion, name: str, maintainer_bound: bool) -> ToolSpec:
    spec = tool_named(protocol, name, maintainer_bound=maintainer_bound)
    if spec is None:
        offered = ", ".join(s.name for s in tools_for(protocol, maintainer_bound=maintainer_bound)) or "none"
        raise ToolRejected("unknown_tool", f"{name!r} is not a tool of {protocol.key} (offered: {offered})")
    return spec


def _parse_arguments(arguments: str) -> dict[str, Any]:
    """Strict JSON (``loads_strict``): a duplicate key, NaN, a 5,000-digit integer or 20,000 levels of
    nesting is the model's mistake like any other, so an ``invalid_arguments`` result, never a crash."""
    if not arguments.strip():
        return {}
    try:
        value = loads_strict(arguments)
    except JsonRejected as exc:
        raise ToolRejected("invalid_arguments", f"arguments: {exc.reason}") from None
    if not isinstance(value, dict):
        raise ToolRejected("invalid_arguments", "arguments must be a JSON object")
    return value


def _describe(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        if err["type"] == "extra_forbidden":
            problems.append(f"{field}: unknown argument")
        else:
            problems.append(f"{field}: {err['msg']}")
    return "; ".join(problems)
