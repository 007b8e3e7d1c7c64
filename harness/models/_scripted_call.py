"""Calling a scripted model and counting its tokens; shared by the litellm custom provider and the
HTTP server so both paths account the same way (E-4).

Contract consumed (a resolver the caller hands in, e.g. ``harness.scripted.get_scripted``):
``resolve(name) -> ScriptedModel`` (KeyError when unknown);
``ScriptedModel.reply(messages, tools) -> ScriptedReply`` with ``content: str | None`` and
``tool_calls: list of {id, name, arguments}`` (mappings or attribute objects); ``reply`` raises
``UnreadableInput`` when the model cannot interpret the request, which ``run_scripted`` turns into
``ModelCallError("unsupported_input")``: a set-up error, not retried, never a model failure.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, Protocol

import harness

from ._errors import ModelCallError, UnreadableInput
from ._types import ToolCallOut


class ScriptedModelLike(Protocol):
    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any: ...


ResolveModel = Callable[[str], ScriptedModelLike]


def unregistered(name: str) -> ScriptedModelLike:
    """The resolver before any caller handed one in: no scripted model is known (KeyError)."""
    raise KeyError(name)


def scripted_name(model: str) -> str:
    """``"scripted/oracle"`` and ``"oracle"`` both name ``oracle``."""
    return model.split("/", 1)[1] if model.startswith("scripted/") else model


async def run_scripted(
    model: ScriptedModelLike, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[str | None, list[ToolCallOut]]:
    try:
        reply = model.reply(messages, tools)
        if inspect.isawaitable(reply):
            reply = await reply
    except Exception as exc:
        if isinstance(exc, UnreadableInput):  # the scripted model cannot read this plan's wording: a set-up error
            raise ModelCallError("unsupported_input", str(exc)) from exc
        raise
    content = _field(reply, "content")
    calls = [
        ToolCallOut(
            id=str(_field(call, "id")),
            name=str(_field(call, "name")),
            arguments=_arguments(_field(call, "arguments")),
        )
        for call in (_field(reply, "tool_calls") or [])
    ]
    return (None if content is None else str(content)), calls


def count_tokens(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    content: str | None,
    tool_calls: list[ToolCallOut],
) -> tuple[int, int]:
    """``(prompt_tokens, completion_tokens)`` with litellm's tokenizer (tiktoken, offline); the prompt's
    messages counted once each (``_tokens``), as a server that caches its prompt would."""
    from ._tokens import prompt_tokens  # litellm's slow import, only when counting

    return prompt_tokens("", messages, tools), completion_tokens(content, tool_calls)


def completion_tokens(content: str | None, tool_calls: list[ToolCallOut]) -> int:
    """Tokens of a reply: its text, then each call's name and arguments, as one response text."""
    harness.import_litellm()  # collector paused, then frozen
    import litellm

    text = (content or "") + "".join(c.name + c.arguments for c in tool_calls)
    return int(litellm.token_counter(text=text, count_response_tokens=True)) if text else 0


def finish_reason(tool_calls: list[ToolCallOut], truncated: bool) -> str:
    if truncated:
        return "length"
    return "tool_calls" if tool_calls else "stop"


def cap_reply(
    content: str | None, tool_calls: list[ToolCallOut], max_tokens: int | None
) -> tuple[str | None, list[ToolCallOut], bool]:
    """The reply a real provider would send under ``max_tokens``: generation stops at the cap.

    The reply is generated in order (content, then each call's name and arguments), so what is cut
    is its tail: content beyond the cap, a call whose name no longer fits, arguments mid-way (then
    usually invalid JSON, as from a real model). Returns ``(content, calls, truncated)``; the
    result's ``completion_tokens`` is at most ``max_tokens``.
    """
    if max_tokens is None or completion_tokens(content, tool_calls) <= max_tokens:
        return content, tool_calls, False
    left = max_tokens
    kept_content = None if content is None else _head(content, left)
    left -= _tokens(kept_content or "")
    kept: list[ToolCallOut] = []
    if kept_content == content:  # calls come after the content: none fit once it is cut
        for call in tool_calls:
            name_tokens = _tokens(call.name)
            if name_tokens >= left:
                break
            arguments = _head(call.arguments, left - name_tokens)
            kept.append(call.model_copy(update={"arguments": arguments}))
            left -= name_tokens + _tokens(arguments)
            if arguments != call.arguments:
                break
    # Token boundaries of the joined text can differ from the parts': shave until it fits.
    while completion_tokens(kept_content, kept) > max_tokens:
        if kept and kept[-1].arguments:
            last = kept[-1]
            kept[-1] = last.model_copy(update={"arguments": _head(last.arguments, _tokens(last.arguments) - 1)})
        elif kept:
            kept.pop()
        else:
            kept_content = _head(kept_content or "", _tokens(kept_content or "") - 1)
    return kept_content, kept, True


def _tokens(text: str) -> int:
    harness.import_litellm()  # collector paused, then frozen
    import litellm

    return len(litellm.encode(model="", text=text)) if text else 0


def _head(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` tokens (no half character at the cut)."""
    harness.import_litellm()  # collector paused, then frozen
    import litellm

    tokens = litellm.encode(model="", text=text)
    if len(tokens) <= limit:
        return text
    head = str(litellm.decode(model="", tokens=tokens[: max(limit, 0)])).rstrip("\ufffd")
    while head and _tokens(head) > limit:
        head = head[:-1]
    return head


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _arguments(value: Any) -> str:
    # The contract says a string; a scripted model that hands a dict means its JSON.
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
