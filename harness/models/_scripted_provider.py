"""The litellm custom provider ``scripted`` (E-4): ``litellm.acompletion(model="scripted/oracle")``
goes through litellm's normal path into a scripted model, so scripted and real models share
accounting (usage from ``litellm.token_counter``) and request capture. Like a real provider it stops
at ``max_tokens`` (finish_reason ``length``), so the runner's worst-case reservation holds (X-21).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from litellm import CustomLLM, ModelResponse
from litellm.llms.custom_llm import CustomLLMError

from ._scripted_call import (
    ResolveModel,
    cap_reply,
    count_tokens,
    finish_reason,
    run_scripted,
    scripted_name,
    unregistered,
)

PROVIDER = "scripted"


class ScriptedProvider(CustomLLM):
    def __init__(self, resolve_model: ResolveModel = unregistered) -> None:
        super().__init__()
        self.resolve_model = resolve_model

    async def acompletion(
        self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        name = scripted_name(model)
        try:
            scripted = self.resolve_model(name)
        except KeyError:
            raise CustomLLMError(status_code=404, message=f"unknown scripted model {name!r}") from None
        tools = list(optional_params.get("tools") or [])
        body = {"model": f"{PROVIDER}/{name}", "messages": messages, **optional_params}
        logging_obj = kwargs.get("logging_obj")
        if logging_obj is not None:  # same hook a real provider fires: request capture sees it
            logging_obj.pre_call(input=messages, api_key="", additional_args={"complete_input_dict": body})
        content, calls = await run_scripted(scripted, messages, tools)
        content, calls, truncated = cap_reply(content, calls, _max_tokens(optional_params))
        prompt_tokens, completion_tokens = count_tokens(messages, tools, content, calls)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ]
        return ModelResponse(
            id=f"chatcmpl-scripted-{uuid.uuid4().hex[:12]}",
            created=int(time.time()),
            model=f"{PROVIDER}/{name}",
            choices=[{"index": 0, "message": message, "finish_reason": finish_reason(calls, truncated)}],
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        )



def _max_tokens(optional_params: dict[str, Any]) -> int | None:
    """The output cap litellm passed on (``max_tokens``, or the newer ``max_completion_tokens``)."""
    for key in ("max_tokens", "max_completion_tokens"):
        value = optional_params.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise CustomLLMError(status_code=400, message=f"{key} must be a positive integer, got {value!r}")
            return value
    return None
