"""The OpenAI-format routes' rules (P-80) on bodies litellm built offline from the fixed plan's requests.

Every route of providers.md Part 2 names a rule for a trailing assistant message, consecutive same-role
messages and a user message after a tool result; a route no source covers gets ``unknown``, never ``ok``.
``ROUTE_CASES`` joins ``test_wire_rules.CASES`` in ``test_every_rule_is_exercised``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.wire import analyze_wire, build_wire_body, preflight_body, provider_of, route_of, state_treatment
from tests.helpers.wire_requests import group_request

MISTRAL = "mistral/mistral-large-latest"
NINE = "lookup001"  # a tool-call id Mistral takes


def built(model: str, group: str, loop: bool = False, extra: dict[str, Any] | None = None, call_id: str = NINE,
          edit: Any = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    request = group_request(group, tool_exchange=loop, call_id=call_id)
    messages = copy.deepcopy(request.messages)
    if edit is not None:
        edit(messages)
    return build_wire_body(model, messages, request.tools, extra=extra, max_output_tokens=1024), messages


def fired(model: str, group: str, loop: bool = False, extra: dict[str, Any] | None = None,
          api_base: str | None = None, call_id: str = NINE, edit: Any = None) -> dict[str, str]:
    body, sent = built(model, group, loop, extra, call_id, edit)
    route = route_of(model, provider_of(model), api_base)
    return {str(v.rule): v.kind for v in preflight_body(model, body, route=route, sent=sent) if v.rule}


def _reasoned_call(messages: list[dict[str, Any]]) -> None:
    next(m for m in messages if m.get("tool_calls"))["reasoning_content"] = "look it up first"


LOCAL = "http://127.0.0.1:8080/v1"
ROUTE_CASES: list[tuple[str, str, str, bool, dict[str, Any] | None, str | None, str, Any, str, str | None]] = [
    # id, model, group, tool loop, extra, api_base, tool-call id, edit, rule, kind (None: must not fire)
    ("openai keeps B's consecutive assistants", "openai/gpt-4o-mini", "B", False, None, None, NINE, None,
     "openai-messages-kept", "ok"),
    ("azure keeps C's user after a tool", "azure/gpt-4o", "C", True, None, None, NINE, None, "openai-messages-kept",
     "ok"),
    ("o3's system prompt goes as user", "openai/o3", "A", False, None, None, NINE, None,
     "openai-o-series-system-as-user", "note"),
    ("gpt-4o keeps its system prompt", "openai/gpt-4o", "A", False, None, None, NINE, None,
     "openai-o-series-system-as-user", None),
    ("mistral refuses A", MISTRAL, "A", False, None, None, NINE, None, "mistral-trailing-assistant-rejected",
     "rejected"),
    ("mistral refuses C after a tool", MISTRAL, "C", True, None, None, NINE, None, "mistral-user-after-tool-rejected",
     "rejected"),
    ("mistral takes C's first request", MISTRAL, "C", False, None, None, NINE, None, "mistral-messages-kept", "ok"),
    ("mistral refuses a foreign tool-call id", MISTRAL, "v1", True, None, None, "toolu_lookup_1", None,
     "mistral-tool-call-id", "rejected"),
    ("mistral takes its own id shape", MISTRAL, "v1", True, None, None, NINE, None, "mistral-tool-call-id", None),
    ("deepseek-reasoner refuses A", "deepseek/deepseek-reasoner", "A", False, None, None, NINE, None,
     "deepseek-reasoner-trailing-assistant-rejected", "rejected"),
    ("deepseek-chat A unknown", "deepseek/deepseek-chat", "A", False, None, None, NINE, None,
     "deepseek-trailing-assistant-unknown", "unknown"),
    ("deepseek roles unknown", "deepseek/deepseek-chat", "B", False, None, None, NINE, None, "deepseek-roles-unknown",
     "unknown"),
    ("deepseek thinking without reasoning_content", "deepseek/deepseek-reasoner", "v1", True, None, None, NINE, None,
     "deepseek-thinking-reasoning-content", "rejected"),
    ("deepseek thinking with reasoning_content sent back", "deepseek/deepseek-reasoner", "v1", True, None, None,
     NINE, _reasoned_call, "deepseek-thinking-reasoning-content", None),
    ("litellm's blank reasoning fill", "deepseek/deepseek-reasoner", "A", False, {"thinking": {"type": "enabled"}},
     None, NINE, None, "deepseek-reasoning-content-fill", "note"),
    ("dashscope A unknown", "dashscope/qwen-max", "A", False, None, None, NINE, None,
     "dashscope-trailing-assistant-unknown", "unknown"),
    ("dashscope C unknown", "dashscope/qwen-max", "C", False, None, None, NINE, None, "dashscope-roles-unknown",
     "unknown"),
    ("moonshot A unknown", "moonshot/kimi-k2", "A", False, None, None, NINE, None,
     "moonshot-trailing-assistant-unknown", "unknown"),
    ("moonshot B unknown", "moonshot/kimi-k2", "B", False, None, None, NINE, None, "moonshot-roles-unknown",
     "unknown"),
    ("kimi reasoning: litellm's blank fill", "moonshot/kimi-k2.5", "v1", True, None, None, NINE, None,
     "moonshot-reasoning-content-fill", "note"),
    ("xai A unknown", "xai/grok-4", "A", False, None, None, NINE, None, "xai-trailing-assistant-unknown", "unknown"),
    ("xai C unknown", "xai/grok-4", "C", True, None, None, NINE, None, "xai-roles-unknown", "unknown"),
    ("groq prefills A", "groq/llama-3.3-70b-versatile", "A", False, None, None, NINE, None,
     "groq-trailing-assistant-prefill", "prefill"),
    ("groq roles unknown", "groq/llama-3.3-70b-versatile", "B", False, None, None, NINE, None, "groq-roles-unknown",
     "unknown"),
    ("openrouter: Claude 4.5 prefills", "openrouter/anthropic/claude-sonnet-4.5", "A", False, None, None, NINE, None,
     "claude-trailing-assistant-prefill", "prefill"),
    ("openrouter: Claude merges C", "openrouter/anthropic/claude-sonnet-4.5", "C", False, None, None, NINE, None,
     "openrouter-upstream-merges", "merged"),
    ("openrouter: Opus 4.6 refuses A", "openrouter/anthropic/claude-opus-4.6", "A", False, None, None, NINE, None,
     "claude-4.6-no-prefill", "rejected"),
    ("openrouter: an upstream no rule covers", "openrouter/qwen/qwen3-235b-a22b", "A", False, None, None, NINE, None,
     "openrouter-upstream-unknown", "unknown"),
    ("gemini: C's state a content of its own after a function response", "gemini/gemini-2.5-flash", "C", True, None,
     None, NINE, None, "gemini-user-content-after-function-response", "note"),
    ("ollama_chat prefills A", "ollama_chat/llama3", "A", False, None, None, NINE, None,
     "ollama-trailing-assistant-prefill", "prefill"),
    ("ollama_chat keeps B", "ollama_chat/llama3", "B", False, None, None, NINE, None, "ollama-messages-kept", "ok"),
    ("ollama/ renders one prompt", "ollama/llama3", "C", False, None, None, NINE, None, "ollama-generate-prompt",
     "merged"),
    ("vLLM opens a new turn after A", "hosted_vllm/qwen", "A", False, None, None, NINE, None,
     "vllm-trailing-assistant-new-turn", "ok"),
    ("vLLM's template decides C", "hosted_vllm/qwen", "C", False, None, None, NINE, None, "vllm-roles-template",
     "unknown"),
    ("a local server: A unknown until asked", "openai/qwen", "A", False, None, LOCAL, NINE, None,
     "local-server-trailing-assistant", "unknown"),
    ("a local server: C unknown until asked", "openai/qwen", "C", False, None, LOCAL, NINE, None,
     "local-server-roles-template", "unknown"),
    ("openai/ on another server is not OpenAI", "openai/qwen", "A", False, None, "https://gpu.example/v1", NINE, None,
     "chat-route-unknown", "unknown"),
    ("openai/ on another server: no new-turn default", "openai/qwen", "A", False, None, "https://gpu.example/v1",
     NINE, None, "chat-trailing-assistant-new-turn", None),
]


@pytest.mark.parametrize(("model", "group", "loop", "extra", "api_base", "call_id", "edit", "rule", "kind"),
                         [c[1:] for c in ROUTE_CASES], ids=[c[0] for c in ROUTE_CASES])
def test_route_rule(model: str, group: str, loop: bool, extra: dict[str, Any] | None, api_base: str | None,
                    call_id: str, edit: Any, rule: str, kind: str | None) -> None:
    verdicts = fired(model, group, loop, extra, api_base, call_id, edit)
    assert verdicts.get(rule) == kind, verdicts


@pytest.mark.parametrize(("model", "api_base"), [
    ("openai/gpt-4o", None), ("azure/gpt-4o", None), (MISTRAL, None), ("deepseek/deepseek-chat", None),
    ("dashscope/qwen-max", None), ("moonshot/kimi-k2", None), ("xai/grok-4", None),
    ("groq/llama-3.3-70b-versatile", None), ("openrouter/anthropic/claude-sonnet-4.5", None),
    ("ollama_chat/llama3", None), ("hosted_vllm/qwen", None), ("openai/qwen", LOCAL),
    ("openai/qwen", "https://gpu.example/v1")])
@pytest.mark.parametrize("group", ["A", "B", "C", "v2"])
@pytest.mark.parametrize("loop", [False, True])
def test_every_state_message_gets_a_rule_on_every_route(model: str, api_base: str | None, group: str,
                                                        loop: bool) -> None:
    """No state message is left to the format's default: a rule of the route names its treatment."""
    body, sent = built(model, group, loop)
    verdicts = preflight_body(model, body, route=route_of(model, provider_of(model), api_base), sent=sent)
    treated = state_treatment(analyze_wire(body), verdicts)
    assert treated.treatment is not None and treated.rule is not None, (treated, verdicts)


def test_moonshot_required_tool_choice_message_is_named() -> None:
    """litellm appends its own user message on tool_choice="required" (the harness sends "auto")."""
    from litellm.types.utils import CallTypes
    from litellm.utils import return_raw_request

    request = group_request("C")
    raw = return_raw_request(CallTypes.completion, {
        "model": "moonshot/kimi-k2", "messages": request.messages, "tools": request.tools,
        "tool_choice": "required"})
    body = raw["raw_request_body"]
    route = route_of("moonshot/kimi-k2", "moonshot")
    rules = {v.rule: v for v in preflight_body("moonshot/kimi-k2", body, route=route, sent=request.messages)}
    assert rules["moonshot-tool-choice-required-message"].kind == "note"


def test_groq_refuses_reasoning_content_in_a_request() -> None:
    """litellm's groq/ strips it, openai/ pointed at Groq does not: a body that carries it is refused."""
    body, sent = built("groq/llama-3.3-70b-versatile", "v1", True)
    next(m for m in body["messages"] if m.get("tool_calls"))["reasoning_content"] = "kept by another client"
    route = route_of("groq/llama-3.3-70b-versatile", "groq")
    rules = {v.rule: v.kind for v in preflight_body("groq/llama-3.3-70b-versatile", body, route=route, sent=sent)}
    assert rules["groq-reasoning-content-rejected"] == "rejected"
