"""Model layer (E-4): one interface, the litellm adapter, scripted models through litellm.

Importing this package does not import litellm; the first model call does.
"""

from ._cap import MAX_ANSWER_CHARS, MAX_TOOL_CALLS, cap_output
from ._context import context_sizes, is_context_refusal, is_template_refusal
from ._errors import ModelCallError, UnreadableInput
from ._factory import make_model
from ._info import model_capacity, supports_assistant_prefill, supports_reasoning
from ._infra_kind import infra_kind
from ._litellm import LiteLLMModel
from ._local import PLACEHOLDER_KEY, is_loopback
from ._pricing import Prices
from ._reasoning import CLAUDE_THINKING_SAMPLING, claude_thinks, thinking_refuses
from ._redact import (
    REDACTED,
    needs_no_redaction,
    public_api_base,
    redact,
    redact_owned,
    redacted_from_json,
    redacted_json,
    redacted_json_text,
    secrets_from_env,
)
from ._scripted_call import ResolveModel, ScriptedModelLike
from ._setup import ensure_litellm, scripted_resolver, use_scripted
from ._tokens import message_tokens, prompt_tokens, tools_tokens
from ._types import (
    MAINTAINER_TAG,
    REASONING_EFFORTS,
    ChatModel,
    ModelOutput,
    ModelRequest,
    RetryRecord,
    ToolCallOut,
    Usage,
    param_problem,
)
from ._unparsed import looks_like_unparsed_tool_call

__all__ = [
    "CLAUDE_THINKING_SAMPLING",
    "MAINTAINER_TAG",
    "MAX_ANSWER_CHARS",
    "MAX_TOOL_CALLS",
    "REDACTED",
    "ChatModel",
    "LiteLLMModel",
    "ModelCallError",
    "ModelOutput",
    "ModelRequest",
    "PLACEHOLDER_KEY",
    "REASONING_EFFORTS",
    "Prices",
    "ResolveModel",
    "RetryRecord",
    "ScriptedModelLike",
    "ToolCallOut",
    "UnreadableInput",
    "Usage",
    "cap_output",
    "claude_thinks",
    "context_sizes",
    "ensure_litellm",
    "infra_kind",
    "is_context_refusal",
    "is_template_refusal",
    "is_loopback",
    "looks_like_unparsed_tool_call",
    "make_model",
    "message_tokens",
    "model_capacity",
    "needs_no_redaction",
    "param_problem",
    "prompt_tokens",
    "public_api_base",
    "redact",
    "redact_owned",
    "redacted_from_json",
    "redacted_json_text",
    "redacted_json",
    "scripted_resolver",
    "secrets_from_env",
    "supports_assistant_prefill",
    "supports_reasoning",
    "thinking_refuses",
    "tools_tokens",
    "use_scripted",
]
