"""The per-session KV state (P-6 … P-9): key names and typed records.

The store keeps plain JSON values; these models are the typed reading of them. Every record is
camelCase on the wire, exactly as the state file of O-40 shows.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

MAIN_WINDOW = "main"

ACTIVE_WINDOW = "activeWindow"
TASK_MEMORY = "taskMemory"
CURRENT_WINDOW_ENTRY = "currentWindowEntry"


def window_key(window_id: str) -> str:
    return f"window/{window_id}"


def checkpoint_key(window_id: str) -> str:
    return f"checkpoint/{window_id}"


def covered_key(window_id: str) -> str:
    return f"coveredThrough/{window_id}"


def fold_key(fold_id: str) -> str:
    return f"fold/{fold_id}"


WindowStatus = Literal["active", "suspended", "completed"]


class Record(BaseModel):
    """A KV value: camelCase JSON, unknown keys kept (state files may carry more)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class WindowRecord(Record):
    """``window/<id>``: goal, handoff input, working memory, results, status, parent."""

    goal: str | None = None
    status: WindowStatus = "active"
    handoff_input: str | None = None
    working_memory: str | None = None
    results: list[str] = Field(default_factory=list)
    parent: str | None = None
    entered_from: str | None = None


class Checkpoint(Record):
    """``checkpoint/<id>``: the prefix summary of a window (P-50 … P-53)."""

    summary: str
    covered_through: int = Field(ge=0)
    source_hash: str | None = None
    revision: int | None = None


class Fold(Record):
    """``fold/<id>``: an agent-made summary standing in for a range of its own window (P-12)."""

    window_id: str
    from_index: int = Field(ge=1)
    through_index: int = Field(ge=1)
    message_ids: list[str]
    summary: str


class CurrentWindowEntry(Record):
    """``currentWindowEntry`` (v2, v3): how the current window was entered (P-72)."""

    window_id: str
    from_window: str | None = None
    entered_at_upper_bound: int = Field(default=0, ge=0)
    input: str | None = None
    revision: int = Field(default=0, ge=0)


class KvLimits(BaseModel):
    """Host limits on the KV (P-7)."""

    model_config = ConfigDict(frozen=True)

    max_keys: int = 4096
    max_value_bytes: int = 64 * 1024
