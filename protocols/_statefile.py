"""The portable state file of one session (O-40, O-41).

``load_state`` reads it into a store (any backend) and returns what a projection needs;
``dump_state`` writes a session of a store back to the same format. Field names are camelCase.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from ._errors import InvalidInput
from ._json import JsonRejected, loads_strict
from ._messages import RUN_ID_RE, FrozenView, MessageDraft, RawMessage
from ._projection_types import AgentConfig
from ._state import (
    ACTIVE_WINDOW,
    CURRENT_WINDOW_ENTRY,
    TASK_MEMORY,
    Checkpoint,
    CurrentWindowEntry,
    Fold,
    Record,
    WindowRecord,
)
from .store import JsonValue, MemoryStore, SessionStore


class StateFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sessionId: str = Field(min_length=1)
    currentRunId: str
    agent: AgentConfig
    kvRevision: int = Field(ge=0)
    upperBound: int | None = Field(default=None, ge=0)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    kv: dict[str, JsonValue] = Field(default_factory=dict)
    receipts: dict[str, JsonValue] = Field(default_factory=dict)


class LoadedState(BaseModel):
    """A state file loaded into a store."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    store: SessionStore
    session_id: str
    agent: AgentConfig
    frozen: FrozenView


def _path_of(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


_KV_RECORDS: dict[str, type[Record]] = {"window/": WindowRecord, "checkpoint/": Checkpoint, "fold/": Fold}


class _Text(RootModel[str]):
    model_config = ConfigDict(strict=True)


class _OptionalText(RootModel[str | None]):
    model_config = ConfigDict(strict=True)


class _Count(RootModel[int]):
    root: int = Field(ge=0)
    model_config = ConfigDict(strict=True)


def _kv_model(key: str) -> type[BaseModel] | None:
    """The typed reading of a KV key (``_state``), so a state file's bad value is refused at load
    rather than crashing the projection or a tool that reads it later; other keys are kept as JSON."""
    if key == ACTIVE_WINDOW:
        return _Text
    if key == TASK_MEMORY:
        return _OptionalText
    if key == CURRENT_WINDOW_ENTRY:
        return CurrentWindowEntry
    if key.startswith("coveredThrough/"):
        return _Count
    return next((model for prefix, model in _KV_RECORDS.items() if key.startswith(prefix)), None)


def parse_state(data: Any) -> StateFile:
    """Validate a state file's shape and its known KV records; errors name every bad field by JSON path."""
    try:
        state = StateFile.model_validate(data)
    except ValidationError as exc:
        problems = [f"{_path_of(e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise InvalidInput("invalid state file: " + "; ".join(problems)) from None
    if not RUN_ID_RE.match(state.currentRunId):
        raise InvalidInput("$.currentRunId: must be 32 lowercase hex digits (.NET 'N' format)")
    problems = []
    for key, value in state.kv.items():
        model = _kv_model(key)
        if model is None:
            continue
        try:
            model.model_validate(value)
        except ValidationError as exc:
            where = f"$.kv[{json.dumps(key, ensure_ascii=False)}]"
            problems += [f"{where}{_path_of(e['loc'])[1:]}: {e['msg']}" for e in exc.errors()]
    if problems:
        raise InvalidInput("invalid state file: " + "; ".join(problems))
    return state


def load_state(data: Any, store: SessionStore | None = None) -> LoadedState:
    """Load a state file (parsed JSON) into ``store`` (a new in-memory store by default)."""
    state = parse_state(data)
    store = store or MemoryStore()
    store.create_session(state.sessionId, state.kv, revision=state.kvRevision, receipts=state.receipts)
    for pos, raw in enumerate(state.messages):
        where = f"$.messages[{pos}]"
        expected = pos + 1
        if raw.get("index") != expected:
            raise InvalidInput(f"{where}.index: expected {expected} (indexes start at 1 and are gapless, P-2)")
        body = {k: v for k, v in raw.items() if k != "index"}
        try:
            draft = MessageDraft.model_validate(body)
        except ValidationError as exc:
            problems = [f"{where}{_path_of(e['loc'])[1:]}: {e['msg']}" for e in exc.errors()]
            raise InvalidInput("invalid state file: " + "; ".join(problems)) from None
        if not draft.id:
            raise InvalidInput(f"{where}.id: every message of a state file needs its MessageId")
        try:
            store.append(state.sessionId, draft)
        except Exception as exc:  # duplicate ids and the like
            raise InvalidInput(f"{where}: {exc}") from None
    max_index = store.max_index(state.sessionId)
    upper = state.upperBound if state.upperBound is not None else max_index
    if upper > max_index:
        raise InvalidInput(f"$.upperBound: {upper} is beyond the last message index {max_index}")
    frozen = FrozenView(revision=state.kvRevision, upper_bound=upper, run_id=state.currentRunId)
    return LoadedState(store=store, session_id=state.sessionId, agent=state.agent, frozen=frozen)


def read_state_file(path: str | Path, store: SessionStore | None = None) -> LoadedState:
    try:
        data = loads_strict(Path(path).read_bytes())
    except FileNotFoundError:
        raise InvalidInput(f"state file {str(path)!r} does not exist") from None
    except OSError as exc:
        raise InvalidInput(f"state file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    except JsonRejected as exc:
        raise InvalidInput(f"state file {str(path)!r}: {exc.reason}") from None
    return load_state(data, store)


def dump_state(
    store: SessionStore,
    session_id: str,
    agent: AgentConfig,
    current_run_id: str,
    upper_bound: int | None = None,
) -> dict[str, Any]:
    """The state file of one session of ``store`` (what converse and the runner export)."""
    messages: list[RawMessage] = store.all_messages(session_id)
    return {
        "sessionId": session_id,
        "currentRunId": current_run_id,
        "agent": agent.model_dump(),
        "kvRevision": store.revision(session_id),
        "upperBound": store.max_index(session_id) if upper_bound is None else upper_bound,
        "messages": [m.wire() for m in messages],
        "kv": store.kv_all(session_id),
        "receipts": store.receipts(session_id),
    }
