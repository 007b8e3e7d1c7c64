"""In-memory store (E-8): the default for tests and smoke runs."""

from __future__ import annotations

import bisect
import copy
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .._errors import RevisionConflict, StoreError
from .._messages import MessageDraft, RawMessage
from .._state import KvLimits
from ._base import JsonValue, KvChanges, SessionStore


@dataclass
class _Session:
    hot: dict[int, RawMessage] = field(default_factory=dict)
    cold: dict[int, RawMessage] = field(default_factory=dict)
    max_index: int = 0
    by_id: dict[str, int] = field(default_factory=dict)
    by_window: dict[str, list[int]] = field(default_factory=dict)  # sorted indexes per window
    inputs_by_run: dict[str, list[int]] = field(default_factory=dict)
    by_call_id: dict[str, int] = field(default_factory=dict)
    kv: dict[str, JsonValue] = field(default_factory=dict)
    revision: int = 0
    receipts: dict[str, JsonValue] = field(default_factory=dict)
    snapshots: list[tuple[str, JsonValue]] = field(default_factory=list)

    def get(self, index: int) -> RawMessage:
        msg = self.hot.get(index)
        return msg if msg is not None else self.cold[index]


class MemoryStore(SessionStore):
    def __init__(self, limits: KvLimits | None = None) -> None:
        self.limits = limits or KvLimits()
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.RLock()

    def _s(self, session_id: str) -> _Session:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise StoreError(f"unknown session {session_id!r}") from None

    def create_session(
        self,
        session_id: str,
        kv: Mapping[str, JsonValue] | None = None,
        revision: int = 0,
        receipts: Mapping[str, JsonValue] | None = None,
    ) -> None:
        with self._lock:
            if session_id in self._sessions:
                raise StoreError(f"session {session_id!r} already exists")
            s = _Session(revision=revision, receipts=copy.deepcopy(dict(receipts or {})))
            if kv:
                self._check_limits(set(), kv)
                s.kv = {k: copy.deepcopy(v) for k, v in kv.items() if v is not None}
            self._sessions[session_id] = s

    def has_session(self, session_id: str) -> bool:
        return session_id in self._sessions

    def append(self, session_id: str, draft: MessageDraft) -> RawMessage:
        with self._lock:
            s = self._s(session_id)
            index = s.max_index + 1
            msg_id = draft.id or f"m{index}"
            if msg_id in s.by_id:
                raise StoreError(f"message id {msg_id!r} already exists in session {session_id!r}")
            msg = RawMessage.model_validate({**draft.model_dump(), "id": msg_id, "index": index})
            s.hot[index] = msg
            s.max_index = index
            s.by_id[msg_id] = index
            s.by_window.setdefault(msg.window_id, []).append(index)
            if msg.kind == "input":
                s.inputs_by_run.setdefault(msg.run_id, []).append(index)
            for call in msg.tool_calls or ():
                s.by_call_id.setdefault(call.id, index)
            return msg

    def max_index(self, session_id: str) -> int:
        return self._s(session_id).max_index

    def window_messages(
        self, session_id: str, window_id: str, after_index: int, upper_bound: int, limit: int | None = None
    ) -> list[RawMessage]:
        with self._lock:
            s = self._s(session_id)
            idx = s.by_window.get(window_id, [])
            lo = bisect.bisect_right(idx, after_index)
            hi = bisect.bisect_right(idx, upper_bound)
            if limit is not None:
                hi = min(hi, lo + limit)
            return [s.get(i) for i in idx[lo:hi]]

    def run_inputs(self, session_id: str, run_id: str, upper_bound: int) -> list[RawMessage]:
        with self._lock:
            s = self._s(session_id)
            return [s.get(i) for i in s.inputs_by_run.get(run_id, []) if i <= upper_bound]

    def messages_by_ids(self, session_id: str, ids: Sequence[str]) -> list[RawMessage]:
        with self._lock:
            s = self._s(session_id)
            return [s.get(s.by_id[i]) for i in ids if i in s.by_id]

    def message_at(self, session_id: str, index: int) -> RawMessage | None:
        with self._lock:
            s = self._s(session_id)
            return s.get(index) if 1 <= index <= s.max_index else None

    def message_by_call_id(self, session_id: str, call_id: str) -> RawMessage | None:
        with self._lock:
            s = self._s(session_id)
            i = s.by_call_id.get(call_id)
            return None if i is None else s.get(i)

    def search(
        self, session_id: str, query: str, window_id: str | None, upper_bound: int, limit: int
    ) -> list[RawMessage]:
        needle = query.casefold()
        out: list[RawMessage] = []
        with self._lock:
            s = self._s(session_id)
            indexes = s.by_window.get(window_id, []) if window_id is not None else range(1, s.max_index + 1)
            for i in indexes:
                if i > upper_bound:
                    break
                msg = s.get(i)
                if needle in msg.text().casefold():
                    out.append(msg)
                    if len(out) >= limit:
                        break
        return out

    def all_messages(self, session_id: str) -> list[RawMessage]:
        with self._lock:
            s = self._s(session_id)
            return [s.get(i) for i in range(1, s.max_index + 1)]

    def archive(self, session_id: str, through_index: int) -> int:
        with self._lock:
            s = self._s(session_id)
            moved = [i for i in s.hot if i <= through_index]
            for i in moved:
                s.cold[i] = s.hot.pop(i)
            return len(moved)

    def revision(self, session_id: str) -> int:
        return self._s(session_id).revision

    def kv_get(self, session_id: str, key: str) -> JsonValue | None:
        with self._lock:
            return copy.deepcopy(self._s(session_id).kv.get(key))

    def kv_prefix(self, session_id: str, prefix: str) -> dict[str, JsonValue]:
        with self._lock:
            kv = self._s(session_id).kv
            return {k: copy.deepcopy(kv[k]) for k in sorted(kv) if k.startswith(prefix)}

    def commit(
        self,
        session_id: str,
        expected_revision: int,
        changes: KvChanges,
        receipt: tuple[str, JsonValue] | None = None,
    ) -> int:
        with self._lock:
            s = self._s(session_id)
            if s.revision != expected_revision:
                raise RevisionConflict(expected_revision, s.revision)
            if receipt is not None and receipt[0] in s.receipts:
                raise StoreError(f"a receipt for call {receipt[0]!r} already exists")
            self._check_limits(set(s.kv), changes)
            for key, value in changes.items():
                if value is None:
                    s.kv.pop(key, None)
                else:
                    s.kv[key] = copy.deepcopy(value)
            if receipt is not None:
                s.receipts[receipt[0]] = copy.deepcopy(receipt[1])
            s.revision += 1
            return s.revision

    def receipt(self, session_id: str, call_id: str) -> JsonValue | None:
        with self._lock:
            return copy.deepcopy(self._s(session_id).receipts.get(call_id))

    def put_receipt(self, session_id: str, call_id: str, result: JsonValue) -> JsonValue:
        with self._lock:
            s = self._s(session_id)
            s.receipts.setdefault(call_id, copy.deepcopy(result))
            return copy.deepcopy(s.receipts[call_id])

    def receipts(self, session_id: str) -> dict[str, JsonValue]:
        with self._lock:
            return copy.deepcopy(self._s(session_id).receipts)

    def put_snapshot(self, session_id: str, snapshot_id: str, data: JsonValue) -> None:
        with self._lock:
            self._s(session_id).snapshots.append((snapshot_id, copy.deepcopy(data)))

    def snapshots(self, session_id: str) -> list[tuple[str, JsonValue]]:
        with self._lock:
            return copy.deepcopy(self._s(session_id).snapshots)
