"""The model's reasoning across a tool loop (E-4): what a provider returned, what each provider takes back.

What must go back within a tool loop (shared notes, providers.md, "Reasoning models"):
- Anthropic, and Claude on Bedrock or Vertex: the assistant message's ``thinking_blocks`` verbatim,
  signatures included (litellm puts them first in the assistant turn; with thinking on, the API
  refuses a tool-use turn that does not start with its thinking block). ``reasoning_content`` is not
  read back.
- Gemini (``gemini/``, ``vertex_ai/``): thought signatures, which litellm carries on the tool-call id
  (``__thought__<sig>``, kept by the engine as the call's id) and on the call's
  ``provider_specific_fields.thought_signature``.
- DeepSeek thinking mode: ``reasoning_content`` on every assistant message of a tool-calling turn; Kimi
  (``moonshot/``) reasoning models too ("thinking is enabled but reasoning_content is missing in assistant
  tool call message"; litellm would otherwise fill a blank one, llms/moonshot/chat/transformation.py:162-205).
- OpenAI chat and the rest: nothing can be replayed, and litellm forwards unknown keys verbatim, so
  none is sent.
The stored message keeps all of it (``MessageDraft.reasoning``); :func:`for_provider` strips, per
call, what the provider does not take.
"""

from __future__ import annotations

import json
from typing import Any

TOP_KEYS = ("thinking_blocks", "reasoning_content")
CALL_KEY = "provider_specific_fields"
_CLAUDE_PROVIDERS = frozenset({"anthropic", "bedrock", "bedrock_converse"})
_GEMINI_PROVIDERS = frozenset({"gemini", "vertex_ai", "vertex_ai_beta"})


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def reasoning_of(message: Any) -> dict[str, Any] | None:
    """What a litellm response message carries for reasoning, in the keys it is sent back under (or None)."""
    out: dict[str, Any] = {}
    blocks = getattr(message, "thinking_blocks", None)
    if blocks:
        out["thinking_blocks"] = _plain(list(blocks))
    text = getattr(message, "reasoning_content", None)
    if isinstance(text, str) and text:
        out["reasoning_content"] = text
    fields = {str(c.id): _plain(dict(c.provider_specific_fields)) for c in getattr(message, "tool_calls", None) or []
              if getattr(c, CALL_KEY, None)}
    if fields:
        out[CALL_KEY] = fields
    return out or None


def taken_back(provider: str | None, model: str) -> frozenset[str]:
    """The reasoning keys ``provider`` (litellm's provider name) takes back on an assistant message."""
    if provider in _CLAUDE_PROVIDERS or (provider in _GEMINI_PROVIDERS and "claude" in model.lower()):
        return frozenset({"thinking_blocks"})
    if provider in _GEMINI_PROVIDERS:
        return frozenset({CALL_KEY})
    if provider in ("deepseek", "moonshot"):
        return frozenset({"reasoning_content"})
    return frozenset()


def for_provider(messages: list[dict[str, Any]], provider: str | None, model: str) -> list[dict[str, Any]]:
    """``messages`` with the reasoning keys ``provider`` does not take removed (copies; the input is kept)."""
    keep = taken_back(provider, model)
    out = []
    for message in messages:
        calls = message.get("tool_calls") or []
        carries = any(k in message for k in TOP_KEYS) or any(CALL_KEY in c for c in calls)
        if message.get("role") != "assistant" or not carries:
            out.append(message)
            continue
        trimmed = {k: v for k, v in message.items() if k not in TOP_KEYS or k in keep}
        if calls and CALL_KEY not in keep:
            trimmed["tool_calls"] = [{k: v for k, v in c.items() if k != CALL_KEY} for c in calls]
        out.append(trimmed)
    return out


def claude_thinks(provider: str | None, model: str, extra: dict[str, Any]) -> bool:
    """Whether a call to a Claude model with these parameters has thinking on: a ``reasoning_effort``
    other than ``none`` (litellm maps it to ``thinking`` enabled with a budget, or adaptive on 4.6+), or an
    explicit ``thinking`` of type ``enabled`` / ``adaptive``. False for any other provider."""
    if "thinking_blocks" not in taken_back(provider, model):
        return False
    thinking = extra.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        return True
    return extra.get("reasoning_effort") not in (None, "none")


CLAUDE_THINKING_SAMPLING = {"temperature": (1.0, 1.0), "top_p": (0.95, 1.0)}
"""What a Claude model takes with thinking on (Anthropic docs, extended thinking, "Feature compatibility",
read 2026-05): temperature only 1, ``top_p`` only from 0.95 to 1; any other value is a 400. A value outside
is not sent (the call samples at the provider's default) and the call's ``sampling`` says so."""


def thinking_refuses(model: str, extra: dict[str, Any], sampling: dict[str, float | None]) -> dict[str, float]:
    """Of ``sampling`` (``temperature``, ``top_p``), the values a call to ``model`` with ``extra`` does not
    send because a Claude model with thinking on refuses them (``CLAUDE_THINKING_SAMPLING``)."""
    if model.startswith("scripted/"):
        return {}
    from ._setup import ensure_litellm

    litellm, _ = ensure_litellm()
    try:
        provider: str | None = str(litellm.get_llm_provider(model)[1])
    except Exception:  # a string litellm cannot place
        provider = None
    if not claude_thinks(provider, model, extra):
        return {}
    return {name: value for name, (low, high) in CLAUDE_THINKING_SAMPLING.items()
            if (value := sampling.get(name)) is not None and not low <= value <= high}


def reasoning_tokens(usage: Any) -> int:
    """Reasoning tokens litellm reports (``completion_tokens_details.reasoning_tokens``), 0 when none."""
    details = getattr(usage, "completion_tokens_details", None)
    return int(getattr(details, "reasoning_tokens", None) or 0)
