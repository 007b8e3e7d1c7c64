"""The provider's view of a request (P-71, P-80): turns, where the state message ends up, prefill.

Bodies are built offline by litellm from the fixed plan's real first requests (``wire_requests``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from harness.wire import analyze_wire, build_wire_body, wire_difference, wire_format
from tests.helpers.wire_requests import group_request

SONNET = "anthropic/claude-sonnet-4-5"
GEMINI = "gemini/gemini-3-pro-preview"
BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
OPENAI = "openai/gpt-4o-mini"


@cache
def body(model: str, group: str, tool_exchange: bool = False) -> dict[str, Any]:
    request = group_request(group, tool_exchange=tool_exchange)
    return build_wire_body(model, request.messages, request.tools, max_output_tokens=1024)


@pytest.mark.parametrize(("model", "fmt"), [(SONNET, "anthropic"), (GEMINI, "gemini"), (BEDROCK, "bedrock_converse"),
                                            (OPENAI, "openai")])
def test_the_body_shape_is_recognised(model: str, fmt: str) -> None:
    assert wire_format(body(model, "A")) == fmt


@pytest.mark.parametrize("model", [SONNET, GEMINI, BEDROCK])
def test_c_state_is_merged_into_the_users_turn(model: str) -> None:
    view = analyze_wire(body(model, "C"))
    assert view.state is not None
    assert (view.state.alone, view.state.mergedWith, view.state.speaker) == (False, ["user input"], "user")
    assert view.turns[-1].blocks == ["user input", "state"] and not view.endsWithAssistant


@pytest.mark.parametrize("model", [SONNET, GEMINI, BEDROCK])
def test_b_state_is_merged_into_the_headers_assistant_turn(model: str) -> None:
    view = analyze_wire(body(model, "B"))
    assert view.state is not None and view.state.turn == 0
    assert view.turns[0].blocks == ["header", "state"] and view.state.mergedWith == ["header"]
    assert view.firstRole == ("model" if model == GEMINI else "assistant")


@pytest.mark.parametrize(("model", "group"), [(m, g) for m in (SONNET, GEMINI, BEDROCK) for g in ("A", "v2")])
def test_a_and_v2_end_with_their_state_as_an_assistant_turn(model: str, group: str) -> None:
    view = analyze_wire(body(model, group))
    assert view.state is not None and view.state.alone and view.state.fromEnd == 0
    assert view.endsWithAssistant and view.lastRole == ("model" if model == GEMINI else "assistant")


@pytest.mark.parametrize("model", [SONNET, BEDROCK])
def test_in_a_tool_loop_c_state_joins_the_tool_result_on_anthropic_and_bedrock(model: str) -> None:
    view = analyze_wire(body(model, "C", tool_exchange=True))
    assert view.state is not None and view.state.mergedWith == ["tool result"]


def test_gemini_keeps_c_state_apart_after_a_function_response() -> None:
    view = analyze_wire(body(GEMINI, "C", tool_exchange=True))
    assert view.state is not None and view.state.alone and view.roles[-2:] == ["user", "user"]
    assert view.turns[-2].blocks == ["tool result"]


def test_openai_chat_keeps_every_message_a_turn_of_its_own() -> None:
    view = analyze_wire(body(OPENAI, "C"))
    assert view.state is not None and view.state.alone and view.roles == ["assistant", "user", "user"]


@pytest.mark.parametrize("group", ["v1", "prefix"])
def test_protocols_without_state_have_none_on_the_wire(group: str) -> None:
    view = analyze_wire(body(SONNET, group))
    assert view.state is None and view.roles == ["assistant", "user"]


def test_summary_says_c_differs_in_role_and_in_becoming_part_of_the_user_input() -> None:
    entry = wire_difference("anthropic", SONNET, "C", "A", body(SONNET, "A"), body(SONNET, "C"))
    assert entry.summary.startswith("on anthropic, C's state is merged into the user's turn: C differs from A in "
                                    "role and in becoming part of the user input")
    assert entry.differsIn == ["stateRole", "stateMerge", "prefill"]
    assert entry.model_dump()["group"]["state"]["mergedWith"] == ["user input"]  # camelCase, like report.json


def test_summary_for_b_names_the_headers_turn_and_the_position() -> None:
    entry = wire_difference("gemini", GEMINI, "B", "A", body(GEMINI, "A"), body(GEMINI, "B"))
    assert entry.summary.startswith("on gemini, B's state is merged into the header's model turn: B differs from A "
                                    "in position and in becoming part of the header")
    assert "A's request ends with a model turn" in entry.summary


def test_summary_for_v2_and_v1() -> None:
    same = wire_difference("anthropic", SONNET, "v2", "A", body(SONNET, "A"), body(SONNET, "v2"))
    assert "v2 and A place it alike" in same.summary and "stateMerge" not in same.differsIn
    none = wire_difference("anthropic", SONNET, "v1", "A", body(SONNET, "A"), body(SONNET, "v1"))
    assert none.summary.startswith("on anthropic, v1 has no state message: v1 differs from A in having none")
