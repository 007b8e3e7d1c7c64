"""Which route a model's requests take, and the rules of the OpenAI-format routes applied to a body (P-80).

On every OpenAI-format route litellm 1.110.2 sends the messages as built (no merge, no reorder, no
``prefix`` / ``partial`` / ``continue_final_message``); what the provider then does with a trailing
assistant message, with consecutive same-role messages and with a user message after a tool result differs
by route (shared notes, providers.md Part 2). Each route names one rule of the table for each of the three;
a route no source covers names rules whose verdict is ``unknown``, never ``ok`` by the format's default.
An ``openai/`` model on another ``api_base`` is not OpenAI: a loopback server is ``local`` (its chat template
decides), any other server ``other``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from harness.models import is_loopback

from ._rules import claude_takes_prefill, gemini_takes_trailing_model_turn
from ._turns import Turn

RouteName = Literal["anthropic", "bedrock", "gemini", "vertex_ai", "openai", "azure", "mistral", "deepseek",
                    "dashscope", "moonshot", "xai", "groq", "openrouter", "ollama", "hosted_vllm", "local", "other"]
ROUTES: tuple[RouteName, ...] = ("anthropic", "bedrock", "gemini", "vertex_ai", "openai", "azure", "mistral",
                                 "deepseek", "dashscope", "moonshot", "xai", "groq", "openrouter", "ollama",
                                 "hosted_vllm", "local", "other")
_SAME_NAME: frozenset[str] = frozenset({"anthropic", "gemini", "vertex_ai", "azure", "mistral", "deepseek",
                                        "dashscope", "moonshot", "xai", "groq", "openrouter", "hosted_vllm"})
_BY_PROVIDER: dict[str, RouteName] = {"bedrock": "bedrock", "bedrock_converse": "bedrock",
                                      "vertex_ai_beta": "vertex_ai", "ollama": "ollama", "ollama_chat": "ollama"}
_OPENAI_LIKE = frozenset({"openai", "text-completion-openai", "openai_like", "custom_openai", "llamafile",
                          "lm_studio", "aiohttp_openai"})
_UPSTREAMS: dict[str, RouteName] = {"anthropic": "anthropic", "openai": "openai", "google": "gemini",
                                    "mistralai": "mistral", "deepseek": "deepseek", "x-ai": "xai"}
_DERIVED = ("header", "state", "fold")
_MISTRAL_ID = re.compile(r"^[A-Za-z0-9]{9}$")


@dataclass(frozen=True)
class Route:
    """``name``: the route the rules read; ``provider``: litellm's; ``upstream``: OpenRouter's upstream route."""

    name: RouteName
    provider: str | None
    upstream: RouteName | None = None


def route_of(model: str, provider: str | None, api_base: str | None = None) -> Route:
    """The route of ``model`` (litellm's ``provider`` for it) served at ``api_base``."""
    if provider in _OPENAI_LIKE:
        if provider == "openai" and (api_base is None or (urlsplit(api_base).hostname or "") == "api.openai.com"):
            return Route("openai", provider)
        return Route("local" if is_loopback(api_base) else "other", provider)
    if provider == "openrouter":
        vendor = model.removeprefix("openrouter/").split("/", 1)[0]
        return Route("openrouter", provider, _UPSTREAMS.get(vendor))
    if provider in _BY_PROVIDER:
        return Route(_BY_PROVIDER[provider], provider)
    if provider in _SAME_NAME:
        return Route(provider, provider)  # type: ignore[arg-type]  # a name of RouteName by _SAME_NAME
    return Route("other", provider)


@dataclass(frozen=True)
class RouteRules:
    """The rule ids a route applies: to a trailing assistant message, to consecutive same-role messages (and a
    message the other two do not cover), to a user message right after a tool result."""

    trailing: str
    roles: str
    after_tool: str


_PLAIN: dict[str, RouteRules] = {
    "openai": RouteRules("chat-trailing-assistant-new-turn", "openai-messages-kept", "openai-messages-kept"),
    "azure": RouteRules("chat-trailing-assistant-new-turn", "openai-messages-kept", "openai-messages-kept"),
    "mistral": RouteRules("mistral-trailing-assistant-rejected", "mistral-messages-kept",
                          "mistral-user-after-tool-rejected"),
    "dashscope": RouteRules("dashscope-trailing-assistant-unknown", "dashscope-roles-unknown",
                            "dashscope-roles-unknown"),
    "moonshot": RouteRules("moonshot-trailing-assistant-unknown", "moonshot-roles-unknown", "moonshot-roles-unknown"),
    "xai": RouteRules("xai-trailing-assistant-unknown", "xai-roles-unknown", "xai-roles-unknown"),
    "groq": RouteRules("groq-trailing-assistant-prefill", "groq-roles-unknown", "groq-roles-unknown"),
    "ollama": RouteRules("ollama-trailing-assistant-prefill", "ollama-messages-kept", "ollama-messages-kept"),
    "hosted_vllm": RouteRules("vllm-trailing-assistant-new-turn", "vllm-roles-template", "vllm-roles-template"),
    "local": RouteRules("local-server-trailing-assistant", "local-server-roles-template",
                        "local-server-roles-template"),
    "other": RouteRules("chat-route-unknown", "chat-route-unknown", "chat-route-unknown"),
}


def route_rules(route: Route, model: str, thinking: bool = False) -> RouteRules:
    """The rules of an OpenAI-format route for ``model`` (the model name picks only which model a rule concerns)."""
    name = route.name
    if name == "deepseek":
        trailing = ("deepseek-reasoner-trailing-assistant-rejected" if "deepseek-reasoner" in model.lower()
                    else "deepseek-trailing-assistant-unknown")
        return RouteRules(trailing, "deepseek-roles-unknown", "deepseek-roles-unknown")
    if name == "openrouter":
        return _upstream_rules(route.upstream, model, thinking)
    return _PLAIN.get(name, _PLAIN["other"])


def _upstream_rules(upstream: RouteName | None, model: str, thinking: bool) -> RouteRules:
    if upstream == "anthropic":
        takes = claude_takes_prefill(model)
        trailing = ("claude-thinking-no-prefill" if thinking else "claude-4.6-no-prefill" if takes is False
                    else "claude-trailing-assistant-prefill" if takes else "openrouter-upstream-unknown")
        return RouteRules(trailing, "openrouter-upstream-merges", "openrouter-upstream-merges")
    if upstream == "gemini":
        takes = gemini_takes_trailing_model_turn(model)
        trailing = ("gemini-trailing-model-unknown" if takes is None
                    else "gemini-trailing-model-prefill" if takes else "gemini-trailing-model-rejected")
        return RouteRules(trailing, "openrouter-upstream-merges", "openrouter-upstream-unknown")
    if upstream in ("openai", "mistral", "deepseek", "xai"):
        return route_rules(Route(upstream, upstream), model, thinking)
    return RouteRules("openrouter-upstream-unknown", "openrouter-upstream-unknown", "openrouter-upstream-unknown")


Hit = tuple[str, int | None, str]
"""(rule id, turn, detail) found in a body; ``_preflight`` makes the verdicts."""


def chat_hits(route: Route, model: str, body: dict[str, Any], seq: list[Turn], thinking: bool) -> list[Hit]:
    """The rules of the route an OpenAI-format body meets: its trailing assistant message, each same-role pair
    with a derived message in it, each user message right after a tool result, the state message (without
    one, the header) when none of these covers it, and the route's own checks (tool-call ids, reasoning
    content). Every derived message is thus read by some rule of the route: no verdict is ``ok`` by default."""
    rules = route_rules(route, model, thinking)
    hits: list[Hit] = []
    if seq and seq[-1].speaker == "assistant":
        hits.append((rules.trailing, len(seq) - 1, model))
    for index in range(1, len(seq)):
        before, turn = seq[index - 1], seq[index]
        if turn.speaker == "user" and before.speaker == "tool":
            hits.append((rules.after_tool, index, "a user message right after a tool result"))
        elif turn.role == before.role and turn.speaker != "tool" and any(
                b in _DERIVED for b in (*before.blocks, *turn.blocks)):
            at = index - 1 if "state" in before.blocks else index
            what = " and the ".join(dict.fromkeys((*before.blocks, *turn.blocks)))
            hits.append((rules.roles, at, f"consecutive {turn.role} messages: the {what}"))
    state = next((i for i in range(len(seq) - 1, -1, -1) if "state" in seq[i].blocks), None)
    derived = state if state is not None else next((i for i, t in enumerate(seq) if set(t.blocks) & set(_DERIVED)),
                                                   None)
    if derived is not None and not any(turn == derived for _, turn, _ in hits):
        what = "state" if derived == state else " and the ".join(b for b in seq[derived].blocks if b in _DERIVED)
        hits.append((rules.roles, derived, f"the {what} message between messages of other roles"))
    hits += _route_checks(route, model, body, thinking)
    return hits


def _route_checks(route: Route, model: str, body: dict[str, Any], thinking: bool) -> list[Hit]:
    name = route.upstream if route.name == "openrouter" and route.upstream else route.name
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    turned = [m for m in messages if m.get("role") not in ("system", "developer")]
    hits: list[Hit] = []
    if name == "mistral":
        for index, message in enumerate(turned):
            ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            ids += [message["tool_call_id"]] if message.get("role") == "tool" and "tool_call_id" in message else []
            hits += [("mistral-tool-call-id", index, f"tool call id {i!r}") for i in ids
                     if not _MISTRAL_ID.match(str(i))]
    if name == "deepseek" and (thinking or "deepseek-reasoner" in model.lower()):
        hits += [("deepseek-thinking-reasoning-content", index, "an assistant tool call without reasoning_content")
                 for index, message in enumerate(turned)
                 if message.get("role") == "assistant" and message.get("tool_calls")
                 and not message.get("reasoning_content")]
    if name == "groq":
        hits += [("groq-reasoning-content-rejected", index, "reasoning_content on this message")
                 for index, message in enumerate(turned) if "reasoning_content" in message]
    return hits
