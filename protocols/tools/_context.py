"""What a tool sees: a reader restricted to one session and the frozen view of its call (P-40)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._messages import FrozenView, RawMessage
from .._state import (
    ACTIVE_WINDOW,
    MAIN_WINDOW,
    Fold,
    WindowRecord,
    covered_key,
    fold_key,
    window_key,
)
from .._version import ProtocolVersion
from ..store import JsonValue, SessionStore


@dataclass(frozen=True)
class ToolContext:
    """One call's authorisation comes from here, never from the model's arguments (P-40)."""

    protocol: ProtocolVersion
    store: SessionStore
    session_id: str
    frozen: FrozenView

    # options ----------------------------------------------------------------------------------
    def option(self, name: str) -> Any:
        return getattr(self.protocol.options, name)

    @property
    def next_revision(self) -> int:
        """The revision a successful write commits under (the dispatcher commits at ``frozen``)."""
        return self.frozen.revision + 1

    # KV -----------------------------------------------------------------------------------------
    def kv(self, key: str) -> JsonValue | None:
        return self.store.kv_get(self.session_id, key)

    def active_window(self) -> str:
        value = self.kv(ACTIVE_WINDOW)
        return str(value) if value else MAIN_WINDOW

    def window(self, window_id: str) -> WindowRecord | None:
        """The window's record; ``main`` always exists (an absent record reads as an active main)."""
        raw = self.kv(window_key(window_id))
        if raw is not None:
            return WindowRecord.model_validate(raw)
        if window_id == MAIN_WINDOW:
            status = "active" if self.active_window() == MAIN_WINDOW else "suspended"
            return WindowRecord(goal=None, status=status)
        return None

    def window_ids(self) -> list[str]:
        """Every window of the session: ``main`` first, then the others by id."""
        ids = {key.removeprefix("window/") for key in self.store.kv_prefix(self.session_id, "window/")}
        ids.discard(MAIN_WINDOW)
        return [MAIN_WINDOW, *sorted(ids)]

    def covered_through(self, window_id: str) -> int:
        value = self.kv(covered_key(window_id))
        return int(value) if value else 0

    def folds(self) -> dict[str, Fold]:
        """Every fold of this session by id (KV is per session: other sessions' folds are invisible)."""
        raw = self.store.kv_prefix(self.session_id, "fold/")
        return {key.removeprefix("fold/"): Fold.model_validate(value) for key, value in raw.items()}

    def fold_limit_reached(self) -> int | None:
        """The ``maxFolds`` limit when the session has reached it (P-25, compressed folds count), else None."""
        limit = int(self.option("maxFolds"))
        return limit if len(self.folds()) >= limit else None

    def fold(self, fold_id: str) -> Fold | None:
        raw = self.kv(fold_key(fold_id))
        return None if raw is None else Fold.model_validate(raw)

    # raw messages -------------------------------------------------------------------------------
    def window_messages(self, window_id: str, after_index: int, limit: int | None = None) -> list[RawMessage]:
        """That window's messages after ``after_index``, never beyond the frozen upper bound."""
        return self.store.window_messages(
            self.session_id, window_id, after_index, self.frozen.upper_bound, limit
        )

    def uncompressed_history(self, window_id: str) -> list[RawMessage]:
        """The window's messages with ``coveredThrough < index ≤ upperBound`` (P-10)."""
        return self.window_messages(window_id, self.covered_through(window_id))
