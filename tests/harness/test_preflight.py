"""Provider preflight (issue 3, must show 6): offline, from litellm's model map and the provider rules."""

from __future__ import annotations

import pytest

from harness.preflight import preflight
from protocols import resolve_ref

A = ("unified@3", {"stateMessagePlacement": "trailing_assistant"})
B = ("unified@3", {"stateMessagePlacement": "before_history_assistant"})
C = ("unified@3", {"stateMessagePlacement": "trailing_user"})
V2 = ("unified@2", {})
V1 = ("unified@1", {})


@pytest.mark.parametrize("variant", [A, V2])
@pytest.mark.parametrize(("model", "verdict"), [
    ("claude-sonnet-4-6", "rejected"),  # no assistant prefill in litellm's map
    ("gemini/gemini-2.5-flash", "rejected"),
    ("claude-sonnet-4-5-20250929", "prefill"),
])
def test_trailing_assistant_is_flagged_for_anthropic_and_gemini(variant: tuple, model: str, verdict: str) -> None:
    """P-80, litellm notes: a request ending with an assistant message changes meaning or is refused."""
    result = preflight(resolve_ref(*variant), model)
    assert (result.endsWith, result.verdict, result.flagged) == ("assistant", verdict, True)


@pytest.mark.parametrize("variant", [B, C, V1])
@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gemini/gemini-2.5-flash", "gpt-4o-mini"])
def test_placements_b_and_c_pass(variant: tuple, model: str) -> None:
    result = preflight(resolve_ref(*variant), model)
    assert (result.endsWith, result.verdict, result.flagged) == ("user", "ok", False)


def test_openai_and_local_servers_are_told_apart() -> None:
    assert preflight(resolve_ref(*A), "gpt-4o-mini").verdict == "new_turn"
    local = preflight(resolve_ref(*A), "openai/qwen", api_base="http://127.0.0.1:8080/v1")
    assert (local.verdict, local.flagged) == ("server_dependent", True)
    assert preflight(resolve_ref(*A), "scripted/prefill-continuer").flagged is False
