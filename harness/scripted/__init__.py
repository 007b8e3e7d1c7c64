"""Scripted models: deterministic functions of the request (X-60 … X-62).

``get_scripted("oracle")`` (or ``"scripted/oracle"``) returns a model whose
``reply(messages, tools)`` reads an OpenAI-format request and answers with text or tool calls.
Usage tokens are counted by the caller (``harness.models``), not here.
"""

from harness.models import UnreadableInput

from ._registry import SCRIPTED_MODELS, get_scripted
from ._types import ScriptedModel, ScriptedReply, ScriptedToolCall

__all__ = ["SCRIPTED_MODELS", "ScriptedModel", "ScriptedReply", "ScriptedToolCall", "UnreadableInput",
           "get_scripted"]
