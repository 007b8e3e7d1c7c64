"""The litellm custom provider ``scripted`` (E-4): ``litellm.acompletion(model="scripted/oracle")``
goes through litellm's normal path into a scripted model, so scripted and real models share
accounting (usage from ``litellm.token_counter``) and request capture.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from litellm import CustomLLM, ModelResponse
from litellm.llms.custom_llm import CustomLLMError

from ._scripted_call import ResolveModel, count_tokens, default_resolver, run_scripted, scripted_name

PROVIDER = "scripted"


class ScriptedProvider(CustomLLM):
    def __init__(self, resolve_model: ResolveModel = default_resolver) -> None:
        super().__init__()
        self.resolve_model = resolve_model

    async def acompletion(  # type: ignore[override]
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
            choices=[{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        )

