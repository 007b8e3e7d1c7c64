"""The LLM mapping of every protocol (P-10 … P-20, P-71, P-80 … P-84, P-90).

A projection reads the frozen view only: the active window's uncovered messages up to the
frozen upper bound, the current run's inputs, that window's folds and a few KV keys. It never
scans the session (Q-1) and never writes anything (P-1).
"""

from __future__ import annotations

import marshal
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._derived import fold_text, header_text, state_text
from ._errors import ProjectionError
from ._messages import FrozenView, RawMessage
from ._options import HostOptions
from ._projection_types import AgentConfig, ProjectedRequest, ProjectionSource, SourceType
from ._prompts import render_protocol_prompt, render_system_prompt
from ._state import (
    ACTIVE_WINDOW,
    CURRENT_WINDOW_ENTRY,
    MAIN_WINDOW,
    TASK_MEMORY,
    checkpoint_key,
    covered_key,
    window_key,
)
from ._text import json_text
from ._version import ProtocolVersion
from ._view import gui_projection, tool_result_preview, validate_pairing
from .tools import ToolSchemas, tool_schemas, tool_schemas_json

if TYPE_CHECKING:
    from .store import SessionStore


@dataclass(slots=True)
class _Item:
    """One history entry of the view before conversion: a raw message or a fold (never changed once made)."""

    index: int
    message: dict[str, Any]
    source: ProjectionSource
    raw: RawMessage | None = None


@lru_cache(maxsize=32768)
def _raw_source(message_id: str) -> ProjectionSource:
    """The source of a raw message (P-19): one frozen value per message id, shared by every request that
    shows it (Q-2: a window's history is projected again at every step)."""
    return ProjectionSource(type="raw", message_ids=(message_id,))


@lru_cache(maxsize=32768)
def _derived_source(kind: SourceType, session_id: str | None = None, window_id: str | None = None) -> ProjectionSource:
    """The source of the system prompt, the context header or the state message (P-19): one frozen value per
    (type, session, window), shared by every request that shows it, as a raw message's is (Q-2: the snapshot
    encodes a source it has seen once)."""
    return ProjectionSource(type=kind, session_id=session_id, window_id=window_id)


def _raw_message(msg: RawMessage, content: Any) -> dict[str, Any]:
    if msg.role == "tool":
        return {"role": "tool", "tool_call_id": msg.tool_call_id, "content": content}
    out: dict[str, Any] = {"role": msg.role, "content": content}
    if msg.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in msg.tool_calls
        ]
    if msg.reasoning:  # sent back as stored; the model adapter keeps only what its provider takes
        fields = msg.reasoning.get("provider_specific_fields") or {}
        for call in out.get("tool_calls", []):
            if isinstance(fields.get(call["id"]), dict):
                call["provider_specific_fields"] = fields[call["id"]]
        out.update({k: v for k, v in msg.reasoning.items() if k in ("thinking_blocks", "reasoning_content")})
    return out


_PREVIEWS: dict[int, tuple[RawMessage, int, bool, Any]] = {}
"""A tool result's shown content by its stored message (held, so its id is not reused while kept)."""
_PREVIEWS_MAX = 4096
_PREVIEWS_LOCK = threading.Lock()
_BUSINESS_LOCK = threading.Lock()


def _preview(raw: RawMessage, limit: int, has_windows: bool) -> Any:
    """``tool_result_preview`` of a stored tool result, computed once per message (Q-2: every step shows
    the window's results again; a raw message never changes, P-1)."""
    hit = _PREVIEWS.get(id(raw))
    if hit is not None and hit[0] is raw and hit[1] == limit and hit[2] == has_windows:
        return hit[3]
    content = tool_result_preview(raw, limit, has_windows)
    with _PREVIEWS_LOCK:
        if len(_PREVIEWS) >= _PREVIEWS_MAX:  # the oldest goes first
            _PREVIEWS.pop(next(iter(_PREVIEWS)))
        _PREVIEWS[id(raw)] = (raw, limit, has_windows, content)
    return content


def _window_history(
    protocol: ProtocolVersion,
    store: SessionStore,
    session_id: str,
    frozen: FrozenView,
    window_id: str,
    covered: int,
    host: HostOptions,
) -> list[_Item]:
    """P-10 … P-14 in the source's order: window filter and protected run inputs, then folds in place
    (step 3), then GUI projection over what is still visible, then large tool result previews (step 4)."""
    messages = store.window_messages(session_id, window_id, covered, frozen.upper_bound)
    # the run's inputs that the window filter left out (another window's, or covered)
    protected = [m for m in store.run_inputs(session_id, frozen.run_id, frozen.upper_bound)
                 if m.window_id != window_id or m.index <= covered]
    if protected:
        messages = sorted([*messages, *protected], key=lambda m: m.index)

    folded: dict[str, tuple[str, dict[str, Any]]] = {}
    if protocol.has_folds:
        for key, fold in store.kv_prefix(session_id, "fold/").items():
            if fold.get("windowId") == window_id and int(fold["fromIndex"]) > covered:
                for mid in fold.get("messageIds", []):
                    folded[mid] = (key.removeprefix("fold/"), fold)

    shown: dict[str, RawMessage] | None = None
    if protocol.options.guiProjection:  # after the folds: a folded screenshot is no longer in the view
        visible = [m for m in messages if m.id not in folded]
        projected = gui_projection(visible)
        if projected is not visible:  # it gives back its input when no message changes
            shown = {m.id: m for m in projected}

    limit, has_windows = host.toolResultPreviewCharacters, protocol.has_windows
    items: list[_Item] = []
    placed: set[str] = set()
    for msg in messages:
        hit = folded.get(msg.id) if folded else None
        if hit is None:
            raw = msg if shown is None else shown[msg.id]
            content: Any = raw.content
            if raw.kind == "tool_result":
                # a GUI-projected result is a new value each step: its preview is not kept
                content = (_preview(raw, limit, has_windows) if raw is msg
                           else tool_result_preview(raw, limit, has_windows))
            items.append(_Item(raw.index, _raw_message(raw, content), _raw_source(raw.id), raw))
            continue
        fold_id, fold = hit
        if fold_id in placed:
            continue
        placed.add(fold_id)
        text = fold_text(
            fold_id=fold_id,
            window_id=window_id,
            from_index=int(fold["fromIndex"]),
            through_index=int(fold["throughIndex"]),
            summary=str(fold.get("summary", "")),
            escape_non_ascii=protocol.escape_non_ascii,
        )
        source = ProjectionSource(
            type="context_fold",
            fold_id=fold_id,
            session_id=session_id,
            window_id=window_id,
            first_index=int(fold["fromIndex"]),
            last_index=int(fold["throughIndex"]),
            message_ids=tuple(fold.get("messageIds", [])),
        )
        items.append(_Item(msg.index, {"role": "assistant", "content": text}, source))
    return items


def _state_body(
    entry: Any,
    frozen: FrozenView,
    window_id: str,
    record: dict[str, Any],
    covered: int,
    history: list[_Item],
) -> dict[str, Any]:
    """P-71: the current execution position, from the frozen KV (``entry``: its ``currentWindowEntry``) and the view.

    ``recentTool`` is the one most recent tool name since entering (source: "最近工具名"), or null."""
    if not isinstance(entry, dict) or entry.get("windowId") != window_id:
        entry = {}
    entered_at = int(entry.get("enteredAtUpperBound") or 0)
    since = [i.raw for i in history if i.raw is not None and i.index > entered_at]
    results = sum(1 for m in since if m.kind == "tool_result")
    recent = [c.name for m in since for c in (m.tool_calls or ())]
    return {
        "windowId": window_id,
        "status": record.get("status", "active"),
        "revision": frozen.revision,
        "enteredFrom": entry.get("fromWindow"),
        "enteredAtUpperBound": entered_at,
        "handoffInput": entry.get("input"),
        "coveredThrough": covered,
        "toolResultsSinceEntry": results,
        "recentTool": recent[-1] if recent else None,
    }


def project(
    protocol: ProtocolVersion,
    store: SessionStore,
    session_id: str,
    frozen: FrozenView,
    agent: AgentConfig,
    host: HostOptions,
    business_tools: list[dict[str, Any]] | ToolSchemas,
) -> ProjectedRequest:
    if frozen.upper_bound > store.max_index(session_id):
        raise ProjectionError(
            f"upper bound {frozen.upper_bound} is beyond the session's last index {store.max_index(session_id)}"
        )
    window_id = MAIN_WINDOW
    record: dict[str, Any] = {"status": "active"}
    # the keys the projection reads, in two reads of the store (the window's keys follow from the active window)
    first = [ACTIVE_WINDOW, TASK_MEMORY] if protocol.has_windows else []
    first += [CURRENT_WINDOW_ENTRY] if protocol.has_state_message else []
    kv = store.kv_get_many(session_id, first)
    if protocol.has_windows:
        window_id = str(kv[ACTIVE_WINDOW] or MAIN_WINDOW)
    second = [covered_key(window_id), checkpoint_key(window_id)] + ([window_key(window_id)] if protocol.has_windows
                                                                     else [])
    kv.update(store.kv_get_many(session_id, second))
    if protocol.has_windows:
        stored = kv[window_key(window_id)]
        if stored is None and window_id != MAIN_WINDOW:
            raise ProjectionError(f"active window {window_id!r} has no window/{window_id} record")
        if stored is not None:
            if not isinstance(stored, dict):
                raise ProjectionError(f"window/{window_id} is not a JSON object")
            record = stored
    covered = int(kv[covered_key(window_id)] or 0)

    history = _window_history(protocol, store, session_id, frozen, window_id, covered, host)
    history_messages, history_sources = [i.message for i in history], [i.source for i in history]
    validate_pairing(history_messages, history_sources)  # P-15, before P-84

    checkpoint = kv[checkpoint_key(window_id)]
    working_checkpoint = None
    if isinstance(checkpoint, dict) and checkpoint.get("summary") is not None:
        working_checkpoint = {"summary": checkpoint["summary"], "coveredThrough": covered}
    header = header_text(
        agent_inputs=agent.inputs,
        task_memory=kv[TASK_MEMORY] if protocol.has_windows else None,
        active_window={"id": window_id, **record} if protocol.has_windows else None,
        checkpoint=working_checkpoint,
        escape_non_ascii=protocol.escape_non_ascii,
    )

    bound = agent.contextMaintainer
    system = render_system_prompt(agent.systemPrompt, render_protocol_prompt(protocol, maintainer_bound=bound))
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    sources = [_derived_source("system")]
    messages.append({"role": "assistant", "content": header})
    sources.append(_derived_source("context_header", session_id, window_id))

    state_msg: dict[str, Any] | None = None
    placement = protocol.state_placement
    if protocol.has_state_message:
        body = _state_body(kv[CURRENT_WINDOW_ENTRY], frozen, window_id, record, covered, history)
        # the view sentence is unified@3's, shared by A, B and C (_derived)
        state_msg = {"role": protocol.state_role, "content": state_text(body, view_note=protocol.version >= 3)}
    state_src = _derived_source("context_state", session_id, window_id)

    if state_msg is not None and placement == "before_history_assistant":
        messages.append(state_msg)
        sources.append(state_src)
    messages.extend(history_messages)
    sources.extend(history_sources)
    if state_msg is not None and placement != "before_history_assistant":
        messages.append(state_msg)
        sources.append(state_src)

    # each tool a dict of its own, as validating the model made it; the rest is built here and valid by
    # construction, so the model is not validated again (Q-2: that copied every message dict of the view)
    # the host's tools: kept ones (the engine's) built anew, each of its dicts and lists new; a plain list's each
    # dict copied, its text found by its content
    if isinstance(business_tools, ToolSchemas):
        business, business_json = business_tools.fresh(), business_tools.json
    else:
        business, business_json = [dict(t) for t in business_tools], _business_json(business_tools)
    tools = [*tool_schemas(protocol, maintainer_bound=bound), *business]
    tools_json = _joined(tool_schemas_json(protocol, maintainer_bound=bound), business_json)
    return ProjectedRequest.model_construct(messages=messages, sources=sources, tools=tools, tools_json=tools_json)


def _json_or_none(value: list[dict[str, Any]]) -> str | None:
    try:
        return json_text(value)
    except (TypeError, ValueError):  # the caller's tools are not JSON: whoever encodes them says so
        return None


_BUSINESS: dict[int, tuple[list[dict[str, Any]], bytes, str | None]] = {}
"""The host's business tools' JSON by the list it hands (held, so its id is not reused while kept)."""
_BUSINESS_MAX = 64


def _business_json(tools: list[dict[str, Any]]) -> str | None:
    """``_json_or_none(tools)``, written once for the list a host hands at every step (Q-2). The list's
    ``marshal`` bytes (version 0: no references, no interning flags; ``1``, ``1.0`` and ``True`` differ) say
    that its content is still what was written; any change, or a value marshal cannot write, writes it again."""
    try:
        content = marshal.dumps(tools, 0)
    except ValueError:
        return _json_or_none(tools)
    kept = _BUSINESS.get(id(tools))
    if kept is not None and kept[0] is tools and kept[1] == content:
        return kept[2]
    text = _json_or_none(tools)
    with _BUSINESS_LOCK:
        if len(_BUSINESS) >= _BUSINESS_MAX:  # the oldest goes first
            _BUSINESS.pop(next(iter(_BUSINESS)))
        _BUSINESS[id(tools)] = (tools, content, text)
    return text


def _joined(first: str, second: str | None) -> str | None:
    """The JSON array of both arrays' items, as ``json.dumps`` writes it (items separated by ``", "``)."""
    if second is None:
        return None
    if first == "[]" or second == "[]":
        return second if first == "[]" else first
    return f"{first[:-1]}, {second[1:]}"


_SEGMENTS = {"system": "system", "context_header": "header", "context_state": "state", "context_fold": "fold"}


def segment_of(source: ProjectionSource) -> str:
    """The request segment a message counts towards (X-51): system, header, state, fold or history."""
    return _SEGMENTS.get(source.type, "history")

