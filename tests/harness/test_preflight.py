"""Provider preflight (P-80): verdicts from the body litellm builds offline, by the rules table."""

from __future__ import annotations

import pytest

from harness.models import ModelRequest
from harness.preflight import first_request, last_role, preflight
from protocols import resolve_ref

A = ("unified@3", {"stateMessagePlacement": "trailing_assistant"})
B = ("unified@3", {"stateMessagePlacement": "before_history_assistant"})
C = ("unified@3", {"stateMessagePlacement": "trailing_user"})
V2 = ("unified@2", {})
V1 = ("unified@1", {})


@pytest.mark.parametrize("variant", [A, V2])
@pytest.mark.parametrize(("model", "verdict", "rule"), [
    ("anthropic/claude-sonnet-4-6", "rejected", "claude-4.6-no-prefill"),
    ("gemini/gemini-3.6-flash", "rejected", "gemini-trailing-model-rejected"),
    ("gemini/gemini-2.5-flash", "prefill", "gemini-trailing-model-prefill"),  # 2.5-flash takes it as prefill
    ("anthropic/claude-sonnet-4-5-20250929", "prefill", "claude-trailing-assistant-prefill"),
])
def test_trailing_assistant_is_flagged_by_the_rule_that_applies(variant: tuple, model: str, verdict: str,
                                                                 rule: str) -> None:
    result = preflight(resolve_ref(*variant), model)
    assert (result.endsWith, result.verdict, result.rule, result.flagged) == ("assistant", verdict, rule, True)
    assert result.source and result.date and "a prefill" in result.message
    assert result.wire is not None and result.wire.endsWithAssistant


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-6", "gemini/gemini-2.5-flash"])
def test_c_becomes_part_of_the_users_turn(model: str) -> None:
    """Not "a new turn": litellm merges C's user state into the user's input."""
    result = preflight(resolve_ref(*C), model)
    assert (result.verdict, result.rule, result.flagged) == ("merged", "consecutive-roles-merged", True)
    assert "merged into the user's turn" in result.message and "part of the user's own input" in result.message
    assert result.wire is not None and result.wire.state is not None
    assert result.wire.state.mergedWith == ["user input"]


def test_b_joins_the_headers_turn_on_anthropic() -> None:
    result = preflight(resolve_ref(*B), "anthropic/claude-opus-4-6")
    assert result.verdict == "merged" and "merged into the header's assistant turn" in result.message


@pytest.mark.parametrize("variant", [A, B, C, V1])
def test_bedrock_rejects_the_assistant_first_request(variant: tuple) -> None:
    result = preflight(resolve_ref(*variant), "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert (result.verdict, result.rule) == ("rejected", "bedrock-first-message-user")
    assert "the first turn is the header" in result.message


def test_openai_and_local_servers_are_told_apart() -> None:
    hosted = preflight(resolve_ref(*A), "openai/gpt-4o-mini")
    assert (hosted.verdict, hosted.rule, hosted.flagged) == ("ok", "chat-trailing-assistant-new-turn", False)
    local = preflight(resolve_ref(*A), "openai/qwen", api_base="http://127.0.0.1:8080/v1")
    assert (local.verdict, local.rule, local.flagged) == ("unknown", "local-server-trailing-assistant", True)
    scripted = preflight(resolve_ref(*A), "scripted/prefill-continuer")
    assert (scripted.verdict, scripted.flagged, scripted.wire) == ("ok", False, None)


def test_the_request_given_is_the_request_checked() -> None:
    """The runner hands the group's first request; C's ends with the user's turn, A's with the state."""
    projected = first_request(resolve_ref(*C), text="还剩多少预算？")
    request = ModelRequest(messages=projected.messages, tools=projected.tools, max_output_tokens=1024)
    result = preflight(resolve_ref(*C), "anthropic/claude-opus-4-6", request=request)
    assert result.endsWith == "user" and result.verdict == "merged"
    assert last_role(resolve_ref(*A)) == "assistant"


def test_a_model_litellm_cannot_place_is_unknown() -> None:
    result = preflight(resolve_ref(*A), "nosuchprovider/some-model")
    assert (result.verdict, result.rule, result.flagged) == ("unknown", None, True)
    assert "no provider body could be built" in result.message
