"""Model layer (E-4): one interface, the litellm adapter, scripted models through litellm.

Importing this package does not import litellm; the first model call does.
"""

from ._errors import ModelCallError
from ._factory import make_model
from ._info import model_capacity, supports_assistant_prefill
from ._interface import ChatModel
from ._litellm import LiteLLMModel
from ._pricing import Prices
from ._redact import REDACTED, redact, secrets_from_env
from ._scripted_call import ResolveModel, ScriptedModelLike
from ._setup import ensure_litellm, scripted_resolver
from ._types import ModelOutput, ModelRequest, RetryRecord, ToolCallOut, Usage

__all__ = [
    "REDACTED",
    "ChatModel",
    "LiteLLMModel",
    "ModelCallError",
    "ModelOutput",
    "ModelRequest",
    "Prices",
    "ResolveModel",
    "RetryRecord",
    "ScriptedModelLike",
    "ToolCallOut",
    "Usage",
    "ensure_litellm",
    "make_model",
    "model_capacity",
    "redact",
    "scripted_resolver",
    "secrets_from_env",
    "supports_assistant_prefill",
]
