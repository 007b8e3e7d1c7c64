"""Raw messages (P-1 … P-3)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from protocols import MessageDraft, new_run_id
from tests.helpers.builders import SessionBuilder


def test_p3_user_input_carries_its_run_in_dotnet_n_format() -> None:
    """P-3: inputRun = the run id as 32 lowercase hex digits, no hyphens; kinds fix their role."""
    run = new_run_id()
    assert len(run) == 32 and run == run.lower() and "-" not in run
    MessageDraft(run_id=run, window_id="main", role="user", kind="input", content="q", input_run=run)
    for bad in (None, run.upper(), f"{run[:8]}-{run[8:12]}-{run[12:16]}-{run[16:20]}-{run[20:]}"):
        with pytest.raises(ValidationError, match="inputRun"):
            MessageDraft(run_id=run, window_id="main", role="user", kind="input", content="q", input_run=bad)
    with pytest.raises(ValidationError, match="requires role 'assistant'"):
        MessageDraft(run_id=run, window_id="main", role="user", kind="tool_call", content="")
    with pytest.raises(ValidationError, match="toolCallId"):
        MessageDraft(run_id=run, window_id="main", role="tool", kind="tool_result", content="{}")


def test_p1_p2_messages_are_immutable_and_indexed_gaplessly() -> None:
    """P-1, P-2: written messages cannot be changed; indexes start at 1 with no gap; ids unique."""
    b = SessionBuilder()
    first = b.user("q")
    b.text("a")
    with pytest.raises(ValidationError):
        first.content = "changed"  # type: ignore[misc]
    messages = b.store.all_messages(b.session_id)
    assert [m.index for m in messages] == [1, 2] and len({m.id for m in messages}) == 2
    assert messages[0].input_run == b.run_id and messages[0].kind_path == "user/input"
