"""The store interface (E-8 … E-10): raw messages, KV with one revision, receipts, snapshots.

Access paths are chosen for Q-1: a projection reads only the active window's uncovered
messages (``window_messages``) and the current run's inputs (``run_inputs``), never the whole
session. Both backends keep a per-(session, window, index) index for that.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from .._errors import KvLimitExceeded
from .._messages import MessageDraft, RawMessage
from .._state import KvLimits

JsonValue = Any
KvChanges = Mapping[str, JsonValue | None]
"""Changes of one transaction: key → new JSON value, or ``None`` to delete the key."""


class SessionStore(ABC):
    """One store holds many sessions; every method is scoped to one session id."""

    limits: KvLimits

    # sessions -------------------------------------------------------------------------------
    @abstractmethod
    def create_session(
        self,
        session_id: str,
        kv: Mapping[str, JsonValue] | None = None,
        revision: int = 0,
        receipts: Mapping[str, JsonValue] | None = None,
    ) -> None:
        """Create an empty session, optionally seeded with KV values, revision and receipts
        (loading a state file, O-40)."""

    @abstractmethod
    def has_session(self, session_id: str) -> bool: ...

    # messages -------------------------------------------------------------------------------
    @abstractmethod
    def append(self, session_id: str, draft: MessageDraft) -> RawMessage:
        """Write one message with the next index (atomic, gapless under concurrency: E-10).

        The id is the draft's id when given (must be unique in the session), else ``m<index>``.
        """

    @abstractmethod
    def max_index(self, session_id: str) -> int:
        """Highest index written so far (0 for an empty session)."""

    @abstractmethod
    def window_messages(
        self, session_id: str, window_id: str, after_index: int, upper_bound: int, limit: int | None = None
    ) -> list[RawMessage]:
        """That window's messages with ``after_index < index <= upper_bound``, by index."""

    @abstractmethod
    def run_inputs(self, session_id: str, run_id: str, upper_bound: int) -> list[RawMessage]:
        """Every ``user/input`` of that run (any window) with index ≤ upper_bound, by index (P-11)."""

    @abstractmethod
    def messages_by_ids(self, session_id: str, ids: Sequence[str]) -> list[RawMessage]:
        """The messages with these ids, in the order of ``ids``; unknown ids are skipped."""

    @abstractmethod
    def message_at(self, session_id: str, index: int) -> RawMessage | None:
        """The message with this index (hot or cold tier), or None."""

    @abstractmethod
    def message_by_call_id(self, session_id: str, call_id: str) -> RawMessage | None:
        """The assistant message that carried the tool call with this id."""

    @abstractmethod
    def search(
        self, session_id: str, query: str, window_id: str | None, upper_bound: int, limit: int
    ) -> list[RawMessage]:
        """Messages whose text contains ``query`` (case-insensitive), by index."""

    @abstractmethod
    def all_messages(self, session_id: str) -> list[RawMessage]:
        """Every message of the session, by index (exports and audits only, never projections)."""

    @abstractmethod
    def archive(self, session_id: str, through_index: int) -> int:
        """Move messages with index ≤ through_index to the cold tier (E-12); returns how many moved.

        Reads merge cold and hot transparently.
        """

    # KV ---------------------------------------------------------------------------------------
    @abstractmethod
    def revision(self, session_id: str) -> int: ...

    @abstractmethod
    def kv_get(self, session_id: str, key: str) -> JsonValue | None: ...

    def kv_get_many(self, session_id: str, keys: Sequence[str]) -> dict[str, JsonValue | None]:
        """``kv_get`` of each key (None when absent), in one call: a backend may read them at one instant
        (a projection reads five or six keys at every step, Q-2)."""
        return {key: self.kv_get(session_id, key) for key in keys}

    @abstractmethod
    def kv_prefix(self, session_id: str, prefix: str) -> dict[str, JsonValue]:
        """Every key starting with ``prefix`` and its value, keys sorted."""

    @abstractmethod
    def commit(
        self,
        session_id: str,
        expected_revision: int,
        changes: KvChanges,
        receipt: tuple[str, JsonValue] | None = None,
    ) -> int:
        """Apply every change and the receipt under revision+1, or nothing (E-9, P-42).

        Raises ``RevisionConflict`` if the revision is not ``expected_revision`` and
        ``KvLimitExceeded`` if a change breaks a limit (P-7). Returns the new revision.
        """

    # receipts ---------------------------------------------------------------------------------
    @abstractmethod
    def receipt(self, session_id: str, call_id: str) -> JsonValue | None: ...

    @abstractmethod
    def put_receipt(self, session_id: str, call_id: str, result: JsonValue) -> JsonValue:
        """Store the receipt of a call that changed nothing (no revision change).

        Insert-if-absent: returns the receipt now stored for the call id (the earlier one if any).
        """

    @abstractmethod
    def receipts(self, session_id: str) -> dict[str, JsonValue]: ...

    # snapshots --------------------------------------------------------------------------------
    @abstractmethod
    def put_snapshot(self, session_id: str, snapshot_id: str, data: JsonValue) -> None: ...

    def put_snapshot_json(self, session_id: str, snapshot_id: str, text: str) -> None:
        """``put_snapshot`` of a snapshot its writer has already encoded as JSON (``snapshots`` gives it
        back decoded); a backend that stores JSON text stores ``text`` as it is."""
        self.put_snapshot(session_id, snapshot_id, json.loads(text))

    def append_after_snapshot(self, session_id: str, snapshot_id: str, text: str, draft: MessageDraft) -> RawMessage:
        """``put_snapshot_json`` of a model call's snapshot, then ``append`` of the message its answer writes.
        A backend with transactions writes both in one; here the snapshot is written first."""
        self.put_snapshot_json(session_id, snapshot_id, text)
        return self.append(session_id, draft)

    @abstractmethod
    def snapshots(self, session_id: str) -> list[tuple[str, JsonValue]]:
        """(snapshot id, data) in write order."""

    def snapshot_texts(self, session_id: str) -> list[tuple[str, str]]:
        """(snapshot id, its JSON text) in write order: the text ``put_snapshot_json`` was given, undecoded,
        where the backend stores JSON text; otherwise ``json.dumps(data, ensure_ascii=False)``."""
        return [(sid, json.dumps(data, ensure_ascii=False)) for sid, data in self.snapshots(session_id)]

    def snapshot_utf8(self, session_id: str) -> list[tuple[str, bytes]]:
        """``snapshot_texts`` in UTF-8: a backend that stores UTF-8 hands it over undecoded (the runner writes it
        into the transcript as it is and decodes only what its judges read)."""
        return [(sid, text.encode("utf-8")) for sid, text in self.snapshot_texts(session_id)]

    # helpers shared by backends ---------------------------------------------------------------
    def kv_all(self, session_id: str) -> dict[str, JsonValue]:
        return self.kv_prefix(session_id, "")

    def _check_limits(self, current_keys: set[str], changes: KvChanges) -> None:
        self._checked_texts(len(current_keys), current_keys.intersection(changes), changes)

    def _checked_texts(self, count: int, present: set[str], changes: KvChanges) -> dict[str, str | None]:
        """Each change's JSON text (None: a deletion), after checking the KV limits (P-7) against a session of
        ``count`` keys of which ``present`` are changed: each value's size in change order, then the key count."""
        texts: dict[str, str | None] = {}
        for key, value in changes.items():
            if value is None:
                texts[key] = None
                count -= key in present
                continue
            text = texts[key] = json.dumps(value, ensure_ascii=False)
            size = len(text.encode("utf-8"))
            if size > self.limits.max_value_bytes:
                raise KvLimitExceeded(
                    f"value of {key!r} is {size} bytes; the limit is {self.limits.max_value_bytes}"
                )
            count += key not in present
        if count > self.limits.max_keys:
            raise KvLimitExceeded(f"{count} keys; the limit is {self.limits.max_keys}")
        return texts
