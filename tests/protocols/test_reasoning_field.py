"""The model's reasoning on a raw assistant message (P-1, P-2): stored verbatim, projected back.

Providers require what they returned for reasoning back within a tool loop (Anthropic thinking
blocks with signatures, Gemini thought signatures, DeepSeek ``reasoning_content``); the raw
message keeps it immutably and the projection sends it on the assistant message it belongs to.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from protocols import AgentConfig, MessageDraft, ToolCall, dump_state, load_state, new_run_id, resolve
from protocols.store import MemoryStore, SessionStore, SqliteStore
from tests.helpers.builders import SessionBuilder

REASONING = {
    "thinking_blocks": [{"type": "thinking", "thinking": "look it up", "signature": "c2lnbmF0dXJl"}],
    "reasoning_content": "look it up",
    "provider_specific_fields": {"c1": {"thought_signature": "Z2VtaW5p"}},
}


def _session(store: SessionStore | None = None) -> SessionBuilder:
    b = SessionBuilder(store)
    b.user("请查询项目 P-17 的预算")
    b._append(role="assistant", kind="tool_call", content="", reasoning=REASONING,
              tool_calls=(ToolCall(id="c1", name="budget_lookup", arguments='{"projectId": "P-17"}'),))
    b.result("c1", {"success": True})
    return b


def test_only_assistant_messages_carry_reasoning() -> None:
    run = new_run_id()
    with pytest.raises(ValidationError, match="only assistant messages"):
        MessageDraft(run_id=run, window_id="main", role="user", kind="input", content="q", input_run=run,
                     reasoning={"reasoning_content": "x"})


@pytest.mark.parametrize("placement", ["trailing_user", "before_history_assistant"])
def test_projection_sends_the_reasoning_back_on_its_message(placement: str) -> None:
    b = _session()
    request = resolve("unified", 3, {"stateMessagePlacement": placement}).project(
        b.store, b.session_id, b.frozen(), AgentConfig(systemPrompt="{{context_protocol}}"))
    call = next(m for m in request.messages if m.get("tool_calls"))
    assert call["thinking_blocks"] == REASONING["thinking_blocks"]
    assert call["reasoning_content"] == "look it up"
    assert call["tool_calls"][0]["provider_specific_fields"] == {"thought_signature": "Z2VtaW5p"}
    assert sum("thinking_blocks" in m for m in request.messages) == 1


def test_messages_without_reasoning_project_as_before() -> None:
    b = SessionBuilder()
    b.user("q")
    b.exchange("budget_lookup", {"projectId": "P-17"})
    request = resolve("unified", 1, {}).project(b.store, b.session_id, b.frozen(),
                                                AgentConfig(systemPrompt="{{context_protocol}}"))
    call = next(m for m in request.messages if m.get("tool_calls"))
    assert set(call) == {"role", "content", "tool_calls"} and set(call["tool_calls"][0]) == {"id", "type", "function"}


def test_reasoning_survives_the_sqlite_store_and_the_state_file(tmp_path: Path) -> None:
    b = _session(SqliteStore(tmp_path / "s.sqlite"))
    stored = b.store.all_messages(b.session_id)[1]
    assert stored.reasoning == REASONING
    state = dump_state(b.store, b.session_id, AgentConfig(systemPrompt="{{context_protocol}}"), b.run_id)
    assert state["messages"][1]["reasoning"] == REASONING
    loaded = load_state(state, MemoryStore())
    assert loaded.store.all_messages(b.session_id)[1].reasoning == REASONING
