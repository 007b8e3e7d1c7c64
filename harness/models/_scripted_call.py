"""Calling a scripted model and counting its tokens; shared by the litellm custom provider and the
HTTP server so both paths account the same way (E-4).

Contract consumed (``harness.scripted``): ``get_scripted(name) -> ScriptedModel`` (KeyError when
unknown); ``ScriptedModel.reply(messages, tools) -> ScriptedReply`` with ``content: str | None`` and
``tool_calls: list of {id, name, arguments}`` (mappings or attribute objects).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, Protocol

from ._types import ToolCallOut


class ScriptedModelLike(Protocol):
    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any: ...


ResolveModel = Callable[[str], ScriptedModelLike]


def default_resolver(name: str) -> ScriptedModelLike:
    """The registry of ``harness.scripted``, imported only when a scripted model is first used."""
    from harness.scripted import get_scripted  # optional sibling package, lazy

    model: ScriptedModelLike = get_scripted(name)
    return model


def scripted_name(model: str) -> str:
    """``"scripted/oracle"`` and ``"oracle"`` both name ``oracle``."""
    return model.split("/", 1)[1] if model.startswith("scripted/") else model


async def run_scripted(
    model: ScriptedModelLike, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[str | None, list[ToolCallOut]]:
    reply = model.reply(messages, tools)
    if inspect.isawaitable(reply):
        reply = await reply
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
    """``(prompt_tokens, completion_tokens)`` with litellm's tokenizer (tiktoken, offline)."""
    import litellm  # slow import, only when counting

    prompt = litellm.token_counter(messages=messages, tools=tools or None)
    text = (content or "") + "".join(c.name + c.arguments for c in tool_calls)
    completion = litellm.token_counter(text=text, count_response_tokens=True) if text else 0
    return int(prompt), int(completion)


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _arguments(value: Any) -> str:
    # The contract says a string; a scripted model that hands a dict means its JSON.
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
