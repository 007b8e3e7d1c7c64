"""The state message's treatment per group and route (P-71, P-80): one vocabulary, decided from the body."""

from __future__ import annotations

from typing import get_args

import pytest

from harness.wire import TREATMENTS, Treatment, analyze_wire, build_wire_body, preflight_body, state_treatment
from tests.helpers.wire_requests import group_request


def treated(model: str, group: str) -> tuple[str | None, str | None, str]:
    request = group_request(group)
    body = build_wire_body(model, request.messages, request.tools, max_output_tokens=1024)
    result = state_treatment(analyze_wire(body), preflight_body(model, body))
    return result.treatment, result.rule, result.detail


def test_the_vocabulary_is_the_literal() -> None:
    assert tuple(TREATMENTS) == get_args(Treatment) == (
        "own_message", "merged", "prefill", "new_turn", "rejected", "unknown")


@pytest.mark.parametrize(("model", "group", "treatment", "rule", "words"), [
    ("anthropic/claude-sonnet-4-5", "A", "prefill", "claude-trailing-assistant-prefill", "continues"),
    ("anthropic/claude-sonnet-4-5", "B", "merged", "consecutive-roles-merged", "with the header"),
    ("anthropic/claude-sonnet-4-5", "C", "merged", "consecutive-roles-merged", "with the user input"),
    ("anthropic/claude-opus-4-6", "A", "rejected", "claude-4.6-no-prefill", "does not support assistant message"),
    ("gemini/gemini-3.6-flash", "v2", "rejected", "gemini-trailing-model-rejected", "Requests ending with a model"),
])
def test_treatment_names_rule_and_detail(model: str, group: str, treatment: str, rule: str, words: str) -> None:
    got = treated(model, group)
    assert got[:2] == (treatment, rule) and words in got[2], got


def test_no_state_message_has_no_treatment() -> None:
    assert treated("anthropic/claude-sonnet-4-5", "v1")[0] is None
