"""The tool catalog: which tools a protocol offers, their argument models and handlers."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .._version import ProtocolVersion
from . import _args as a
from ._context import ToolContext
from ._folds import fold_create, fold_list, fold_read
from ._frozen import ToolSchemas
from ._history import history_list
from ._results import Compress, Write
from ._windows import (
    task_memory_set,
    window_complete,
    window_list,
    window_memory_set,
    window_open,
    window_read,
    window_search,
)

Handler = Callable[[ToolContext, Any], "dict[str, Any] | Write | Compress"]

COMPRESS_TOOL = "context_compress"
"""The agent-called compression (source: 若 Agent 绑定了 context-maintainer，也可以在阶段完成后主动调用):
offered only to an agent bound to the host's context maintainer, never by prefix@2."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[a.ToolArgs]
    handler: Handler
    writes: bool
    """State-changing tools commit through the dispatcher; read tools never change state (P-22)."""

    @property
    def requires_expected_window(self) -> bool:
        """v2/v3 write tools carry ``expectedWindowId`` (P-73)."""
        return "expected_window_id" in self.args.model_fields

    def schema(self) -> dict[str, Any]:
        """OpenAI function-tool format; parameters are the argument model's JSON Schema."""
        parameters = self.args.model_json_schema(by_alias=True)
        parameters.pop("title", None)
        for prop in parameters.get("properties", {}).values():
            prop.pop("title", None)
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": parameters}}


_D = {
    "context_window_open": "Create (resume=false, with goal) or resume (resume=true) a window and make it "
                           "active from the next step on; the previous window is suspended.",
    "context_window_memory_set": "Replace the active window's working memory.",
    "context_window_complete": "Store the result, mark the active window completed and return to the window "
                               "it was entered from (else main). main cannot be completed.",
    "context_window_list": "List windows with id, goal and status; page with nextOffset.",
    "context_window_search": "Find raw messages of this session containing a text (case-insensitive).",
    "context_window_read": "Read a window's raw messages in index order; page with nextAfterIndex.",
    "context_task_memory_set": "Replace the task memory: cross-window goals, constraints and progress.",
    "context_history_list": "List the active window's uncompressed history as interaction groups with real "
                            "indexes, previews and whether each can be folded; page with nextAfterIndex.",
    "context_fold_create": "Fold complete groups fromIndex..throughIndex of the active window (from "
                           "context_history_list) into your own summary; the raw messages stay readable.",
    "context_fold_list": "List a window's folds (default: the active window) with summaries and whether "
                         "compression has covered them; page with nextOffset.",
    "context_fold_read": "Read a fold's raw messages as JSON text, 12000 characters at a time; continue "
                         "with nextCursor until it is null.",
    COMPRESS_TOOL: "Compress the active window now: the host's context maintainer summarises its older history "
                   "into the window's checkpoint, keeping the most recent groups as they are. Folds it covers "
                   "stay readable with context_fold_read. Use it after a finished stage.",
}


def compress(ctx: ToolContext, args: a.CompressArgs) -> Compress:
    """The dispatcher runs the bound maintainer on the active window (``_dispatch.dispatch_bound``)."""
    return Compress(ctx.active_window())


def _spec(name: str, args: type[a.ToolArgs], handler: Handler, writes: bool) -> ToolSpec:
    return ToolSpec(name, _D[name], args, handler, writes)


def _catalog(v2: bool) -> tuple[ToolSpec, ...]:
    return (
        _spec("context_window_open", a.WindowOpenArgsV2 if v2 else a.WindowOpenArgs, window_open, True),
        _spec("context_window_memory_set", a.MemorySetArgsV2 if v2 else a.MemorySetArgs,
              window_memory_set, True),
        _spec("context_window_complete", a.WindowCompleteArgsV2 if v2 else a.WindowCompleteArgs,
              window_complete, True),
        _spec("context_window_list", a.WindowListArgs, window_list, False),
        _spec("context_window_search", a.WindowSearchArgs, window_search, False),
        _spec("context_window_read", a.WindowReadArgs, window_read, False),
        _spec("context_task_memory_set", a.TaskMemorySetArgs, task_memory_set, True),
        _spec("context_history_list", a.HistoryListArgs, history_list, False),
        _spec("context_fold_create", a.FoldCreateArgsV2 if v2 else a.FoldCreateArgs, fold_create, True),
        _spec("context_fold_list", a.FoldListArgs, fold_list, False),
        _spec("context_fold_read", a.FoldReadArgs, fold_read, False),
    )


_V1 = _catalog(v2=False)
_V2 = _catalog(v2=True)
_COMPRESS = {False: _spec(COMPRESS_TOOL, a.CompressArgs, compress, True),
             True: _spec(COMPRESS_TOOL, a.CompressArgsV2, compress, True)}


def _family(requires_expected_window: bool, maintainer_bound: bool) -> tuple[ToolSpec, ...]:
    tools = _V2 if requires_expected_window else _V1
    return (*tools, _COMPRESS[requires_expected_window]) if maintainer_bound else tools


def tools_for(protocol: ProtocolVersion, *, maintainer_bound: bool = False) -> list[ToolSpec]:
    """The protocol's context tools in catalog order (prefix@2 has none, P-90); ``context_compress``
    last, when the agent is bound to the host's context maintainer."""
    if not protocol.has_windows:
        return []
    return list(_family(protocol.requires_expected_window, maintainer_bound))


def tool_named(protocol: ProtocolVersion, name: str, *, maintainer_bound: bool = False) -> ToolSpec | None:
    """The context tool of that name among ``tools_for(protocol, maintainer_bound=...)``, or None; from a table
    made once per family (the dispatcher asks at every call, P-40)."""
    if not protocol.has_windows:
        return None
    return _named(protocol.requires_expected_window, maintainer_bound).get(name)


@cache
def _named(requires_expected_window: bool, maintainer_bound: bool) -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in _family(requires_expected_window, maintainer_bound)}


@cache
def _schemas(requires_expected_window: bool, maintainer_bound: bool) -> str:
    return json.dumps([spec.schema() for spec in _family(requires_expected_window, maintainer_bound)])


@cache
def _schemas_text(requires_expected_window: bool, maintainer_bound: bool) -> str:
    return json.dumps(json.loads(_schemas(requires_expected_window, maintainer_bound)), ensure_ascii=False)


def tool_schemas_json(protocol: ProtocolVersion, *, maintainer_bound: bool = False) -> str:
    """``json.dumps(tool_schemas(protocol, maintainer_bound=...), ensure_ascii=False)``, written once per
    schema family (Q-2: the request's hash, segments and snapshot read the tools' text at every step)."""
    if not protocol.has_windows:
        return "[]"
    return _schemas_text(protocol.requires_expected_window, maintainer_bound)


def tool_schemas(protocol: ProtocolVersion, *, maintainer_bound: bool = False) -> list[dict[str, Any]]:
    """The tool schemas of a protocol; built once per schema family (Q-2: not on every request).

    prefix@2 has none; unified@1 has v1's; unified@2 and @3 share v2's (P-82).
    """
    if not protocol.has_windows:
        return []
    # new dicts at every call (a caller may change its copy): built from the family's literal (Q-2: every step's
    # projection asks)
    return _schemas_kept(protocol.requires_expected_window, maintainer_bound).fresh()


@cache
def _schemas_kept(requires_expected_window: bool, maintainer_bound: bool) -> ToolSchemas:
    return ToolSchemas(json.loads(_schemas(requires_expected_window, maintainer_bound)))
