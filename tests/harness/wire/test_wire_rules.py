"""Every rule of the provider table (P-80) on bodies litellm built offline from the fixed plan's requests.

Each case names the model, the group, whether the request is inside the tool loop, the litellm
parameters, and the rule that must fire (or must not). ``test_every_rule_is_exercised`` keeps the
table and these cases together.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.wire import (
    RULE_BY_ID,
    RULES,
    analyze_wire,
    build_wire_body,
    claude_version,
    gemini_version,
    preflight_body,
    worst,
)
from tests.helpers.wire_requests import GROUPS, group_request

SONNET45 = "anthropic/claude-sonnet-4-5"
BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
LOW = {"reasoning_effort": "low"}


def built(model: str, group: str, tool_exchange: bool = False, extra: dict[str, Any] | None = None,
          max_output_tokens: int | None = 1024, edit: Any = None) -> dict[str, Any]:
    request = group_request(group, tool_exchange=tool_exchange)
    messages = copy.deepcopy(request.messages)
    if edit is not None:
        edit(messages)
    return build_wire_body(model, messages, request.tools, extra=extra, max_output_tokens=max_output_tokens)


def fired(model: str, body: dict[str, Any], thinking: bool = False) -> dict[str, str]:
    return {str(v.rule): v.kind for v in preflight_body(model, body, thinking) if v.rule}


def _thinking_on_call(messages: list[dict[str, Any]]) -> None:
    call = next(m for m in messages if m.get("tool_calls"))
    call["thinking_blocks"] = [{"type": "thinking", "thinking": "look it up", "signature": "sig-abc"}]


def _signed_call_id(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        for call in message.get("tool_calls") or []:
            call["id"] += "__thought__c2lnbmVkLWJ5LWdlbWluaQ=="
        if message.get("role") == "tool":
            message["tool_call_id"] += "__thought__c2lnbmVkLWJ5LWdlbWluaQ=="


CASES: list[tuple[str, str, str, bool, dict[str, Any] | None, Any, str, str | None]] = [
    # id, model, group, tool loop, extra, edit, rule, kind (None: must not fire)
    ("bedrock rejects assistant-first, prefix@2 too", BEDROCK, "prefix", False, None, None,
     "bedrock-first-message-user", "rejected"),
    ("anthropic takes assistant-first", SONNET45, "C", False, None, None, "anthropic-first-message-assistant", "ok"),
    ("C merged on anthropic", SONNET45, "C", False, None, None, "consecutive-roles-merged", "merged"),
    ("B merged on gemini", "gemini/gemini-2.5-flash", "B", False, None, None, "consecutive-roles-merged", "merged"),
    ("A alone: no merge", SONNET45, "A", False, None, None, "consecutive-roles-merged", None),
    ("A is a prefill on sonnet 4.5", SONNET45, "A", False, None, None, "claude-trailing-assistant-prefill", "prefill"),
    ("A rejected on opus 4.6", "anthropic/claude-opus-4-6", "A", False, None, None, "claude-4.6-no-prefill",
     "rejected"),
    ("v2 rejected on sonnet 4.6", "anthropic/claude-sonnet-4-6", "v2", False, None, None, "claude-4.6-no-prefill",
     "rejected"),
    ("C passes on opus 4.6", "anthropic/claude-opus-4-6", "C", False, None, None, "claude-4.6-no-prefill", None),
    ("A with thinking rejected on 4.5", SONNET45, "A", False, LOW, None, "claude-thinking-no-prefill", "rejected"),
    ("budget equal to max_tokens", SONNET45, "C", False, LOW, None, "claude-thinking-budget-below-max-tokens",
     "rejected"),
    ("tool turn without thinking block", SONNET45, "C", True, LOW, None, "claude-thinking-tool-turn", "rejected"),
    ("tool turn with its thinking block", SONNET45, "C", True, LOW, _thinking_on_call, "claude-thinking-tool-turn",
     None),
    ("A prefill on gemini-2.5-flash", "gemini/gemini-2.5-flash", "A", False, None, None,
     "gemini-trailing-model-prefill", "prefill"),
    ("A prefill on gemini-3.5-flash", "gemini/gemini-3.5-flash", "A", False, None, None,
     "gemini-trailing-model-prefill", "prefill"),
    ("A prefill on gemini-3-pro-preview", "gemini/gemini-3-pro-preview", "A", False, None, None,
     "gemini-trailing-model-prefill", "prefill"),
    ("A rejected on gemini-3.5-flash-lite", "gemini/gemini-3.5-flash-lite", "A", False, None, None,
     "gemini-trailing-model-rejected", "rejected"),
    ("v2 rejected on gemini-3.6-flash", "gemini/gemini-3.6-flash", "v2", False, None, None,
     "gemini-trailing-model-rejected", "rejected"),
    ("C passes on gemini-3.6-flash", "gemini/gemini-3.6-flash", "C", False, None, None,
     "gemini-trailing-model-rejected", None),
    ("an unversioned gemini name", "gemini/gemini-flash-latest", "A", False, None, None,
     "gemini-trailing-model-unknown", "unknown"),
    ("litellm keeps a function response apart", "gemini/gemini-3-pro-preview", "C", True, None, None,
     "gemini-function-response-text-mix", None),
    ("no signature: litellm's placeholder", "gemini/gemini-3-pro-preview", "v1", True, None, None,
     "gemini-3-signature-placeholder", "note"),
    ("the model's signature kept on the call id", "gemini/gemini-3-pro-preview", "v1", True, None, _signed_call_id,
     "gemini-3-signature-placeholder", None),
    ("C's state joins a tool result on bedrock", BEDROCK, "C", True, None, None, "bedrock-tool-result-text-mix",
     "rejected"),
    ("B's tool result stays alone on bedrock", BEDROCK, "B", True, None, None, "bedrock-tool-result-text-mix", None),
    ("A on a hosted chat API: a new turn", "openai/gpt-4o-mini", "A", False, None, None,
     "chat-trailing-assistant-new-turn", "ok"),
    ("C on a chat API: no trailing assistant", "openai/gpt-4o-mini", "C", False, None, None,
     "chat-trailing-assistant-new-turn", None),
]


@pytest.mark.parametrize(("model", "group", "loop", "extra", "edit", "rule", "kind"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_on_a_built_body(model: str, group: str, loop: bool, extra: dict[str, Any] | None, edit: Any,
                              rule: str, kind: str | None) -> None:
    verdicts = fired(model, built(model, group, loop, extra, edit=edit))
    assert verdicts.get(rule) == kind, verdicts


def test_every_rule_is_exercised() -> None:
    from tests.harness.wire.test_route_rules import ROUTE_CASES

    exercised = {c[6] for c in CASES if c[7] is not None} | {"gemini-function-response-text-mix",
                                                             "moonshot-tool-choice-required-message",
                                                             "groq-reasoning-content-rejected"}
    exercised |= {c[8] for c in ROUTE_CASES if c[9] is not None}
    exercised |= {  # a local server rendering: tests/harness/preflight/test_local_server.py
        "local-template-prefill", "local-template-new-turn", "local-template-own-message", "local-template-merged",
        "local-template-rejected", "local-server-unrendered"}
    assert exercised == set(RULE_BY_ID)
    assert all(rule.source and rule.date for rule in RULES)


def test_a_local_chat_server_decides_by_its_template() -> None:
    """The same OpenAI-style body: a loopback server's chat template decides (llama.cpp: prefill)."""
    body = built("openai/qwen", "A")
    verdicts = {str(v.rule): v.kind for v in preflight_body("openai/qwen", body, local=True) if v.rule}
    assert verdicts == {"local-server-trailing-assistant": "unknown"}
    assert "chat-trailing-assistant-new-turn" in fired("openai/qwen", body)


def test_gemini_function_response_mixed_with_text_is_flagged() -> None:
    """litellm never builds it (above); a body that mixes them, as other clients send, is flagged."""
    body = built("gemini/gemini-3-pro-preview", "C", True)
    response, state = body["contents"][-2], body["contents"][-1]
    body["contents"][-2:] = [{"role": "user", "parts": [*response["parts"], *state["parts"]]}]
    assert fired("gemini/gemini-3-pro-preview", body)["gemini-function-response-text-mix"] == "rejected"


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_group_starts_with_the_header_which_bedrock_rejects(group: str) -> None:
    verdicts = preflight_body(BEDROCK, built(BEDROCK, group))
    first = next(v for v in verdicts if v.rule == "bedrock-first-message-user")
    assert first.turn == 0 and "the first turn is the header" in first.message
    assert worst(verdicts).kind == "rejected" and first.source and "2026" in str(first.date)


@pytest.mark.parametrize(("group", "kind"), [("A", "rejected"), ("v2", "rejected"), ("B", "merged"),
                                             ("C", "merged"), ("v1", "ok"), ("prefix", "ok")])
def test_opus_46_rejects_exactly_the_trailing_assistant_groups(group: str, kind: str) -> None:
    model = "anthropic/claude-opus-4-6"
    assert worst(preflight_body(model, built(model, group))).kind == kind


def test_thinking_with_enough_output_room_and_thinking_blocks_sends() -> None:
    body = built(SONNET45, "C", True, LOW, max_output_tokens=None, edit=_thinking_on_call)
    assert body["max_tokens"] > body["thinking"]["budget_tokens"]  # litellm adds room when none is set
    assert analyze_wire(body).turns[2].blocks == ["thinking", "tool call"]
    assert worst(preflight_body(SONNET45, body)).kind == "merged"


def test_the_thinking_flag_counts_where_the_body_cannot_show_it() -> None:
    body = built(BEDROCK, "A")
    assert "claude-thinking-no-prefill" not in fired(BEDROCK, body)
    assert fired(BEDROCK, body, thinking=True)["claude-thinking-no-prefill"] == "rejected"


@pytest.mark.parametrize(("name", "version"), [
    ("claude-opus-4-6", (4, 6)), ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", (4, 5)),
    ("claude-sonnet-4-20250514", (4, 0)), ("claude-3-5-sonnet-20241022", (3, 5)), ("gpt-4o", None)])
def test_claude_version(name: str, version: tuple[int, int] | None) -> None:
    assert claude_version(name) == version


@pytest.mark.parametrize(("name", "version"), [
    ("gemini/gemini-3-pro-preview", (3, 0, "pro")), ("gemini-3.5-flash-lite", (3, 5, "flash-lite")),
    ("gemini-2.5-flash", (2, 5, "flash")), ("gemini-flash-latest", None)])
def test_gemini_version(name: str, version: tuple[int, int, str] | None) -> None:
    assert gemini_version(name) == version
