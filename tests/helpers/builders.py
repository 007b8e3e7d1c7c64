"""Shared builders: write sessions message by message without ceremony."""

from __future__ import annotations

import json
from typing import Any

from protocols import FrozenView, MessageDraft, RawMessage, ToolCall, new_run_id
from protocols.store import MemoryStore, SessionStore


class SessionBuilder:
    """Appends messages to one session; tracks the current run and window."""

    def __init__(self, store: SessionStore | None = None, session_id: str = "s1",
                 kv: dict[str, Any] | None = None) -> None:
        self.store = store or MemoryStore()
        self.session_id = session_id
        self.store.create_session(session_id, kv or {"activeWindow": "main"})
        self.run_id = new_run_id()
        self.window = "main"
        self._call_seq = 0

    def new_run(self) -> str:
        self.run_id = new_run_id()
        return self.run_id

    def _append(self, **fields: Any) -> RawMessage:
        fields.setdefault("window_id", self.window)
        fields.setdefault("run_id", self.run_id)
        return self.store.append(self.session_id, MessageDraft(**fields))

    def user(self, text: str, kind: str = "input") -> RawMessage:
        extra = {"input_run": self.run_id} if kind == "input" else {}
        return self._append(role="user", kind=kind, content=text, **extra)

    def text(self, text: str) -> RawMessage:
        return self._append(role="assistant", kind="text", content=text)

    def call(self, name: str, args: dict[str, Any] | str | None = None, call_id: str | None = None,
             frozen: FrozenView | None = None) -> RawMessage:
        self._call_seq += 1
        cid = call_id or f"c{self._call_seq}"
        raw = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
        return self._append(role="assistant", kind="tool_call", content="",
                            tool_calls=(ToolCall(id=cid, name=name, arguments=raw),), frozen_view=frozen)

    def result(self, call_id: str, content: Any, window_id: str | None = None) -> RawMessage:
        body = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        fields: dict[str, Any] = {"role": "tool", "kind": "tool_result", "content": body, "tool_call_id": call_id}
        if window_id:
            fields["window_id"] = window_id
        return self._append(**fields)

    def exchange(
        self, name: str, args: dict[str, Any] | None = None, result: Any = None
    ) -> tuple[RawMessage, RawMessage]:
        call = self.call(name, args)
        assert call.tool_calls
        return call, self.result(call.tool_calls[0].id, result if result is not None else {"success": True})

    def frozen(self) -> FrozenView:
        return FrozenView(revision=self.store.revision(self.session_id),
                          upper_bound=self.store.max_index(self.session_id), run_id=self.run_id)
