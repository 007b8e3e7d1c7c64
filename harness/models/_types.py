"""The model interface (E-4): ``ChatModel``, and the values that cross it: one request in, one output out.

Per-call usage (`Usage`) adds with ``+`` so a run can sum its calls; the run-level total is the
caller's own type.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Parameters the adapter owns; a request may not smuggle them in through ``extra``.
RESERVED_PARAMS = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "timeout", "max_tokens",
        "temperature", "top_p", "seed", "api_key", "api_base", "base_url", "num_retries", "max_retries",
        "modify_params", "litellm_call_id", "max_completion_tokens", "stream",
    }
)
_CREDENTIAL_WORDS = ("key", "secret", "token", "credential")
_CREDENTIAL_PARAMS = frozenset({"vertex_credentials", "extra_headers", "headers", "azure_ad_token"})
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
"""The values of ``reasoning_effort`` a plan or ``--reasoning-effort`` may give (litellm maps each to the
provider's own: Anthropic thinking budgets or adaptive effort, Gemini thinking levels or budgets)."""


def param_problem(name: str) -> str | None:
    """Why a provider parameter may not go into ``ModelRequest.extra`` (None: it may). Credentials never
    do (O-26: keys come from the environment) and neither do the parameters the adapter sets itself."""
    lowered = name.lower()
    if lowered in RESERVED_PARAMS and lowered not in ("api_key",):
        return f"{name} is set by the harness itself (the plan's models, budget and sampling fields), not a parameter"
    if lowered.startswith("aws_"):
        return f"{name}: AWS credentials and settings come from the environment, never from a plan (O-26, O-30)"
    if lowered in _CREDENTIAL_PARAMS or any(word in lowered for word in _CREDENTIAL_WORDS):
        return f"{name} looks like a credential: keys come from the environment, never from a plan (O-26, O-30)"
    return None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelRequest(_Frozen):
    """A chat request in OpenAI chat format, as the protocol built it (E-3)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    max_output_tokens: int | None = Field(default=None, gt=0)
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: int | None = None
    """Sampling; None = not sent (the provider's default)."""
    timeout_seconds: float = Field(default=60.0, gt=0)
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("extra")
    @classmethod
    def _no_reserved(cls, value: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_PARAMS.intersection(value))
        if clash:
            raise ValueError(f"extra may not set adapter-owned parameters: {', '.join(clash)}")
        credentials = sorted(k for k in value if param_problem(k) is not None)
        if credentials:
            raise ValueError(f"extra may not carry credentials: {', '.join(credentials)}")
        return value


class ToolCallOut(_Frozen):
    """One tool call as the model produced it; ``arguments`` is the raw string (maybe invalid JSON)."""

    id: str
    name: str
    arguments: str


class Usage(_Frozen):
    """Tokens of one call. ``input_tokens`` includes the cached ones."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    """The model's reasoning (thinking) tokens: counted inside ``output_tokens``, as providers bill them,
    and here on their own."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (Anthropic ``cache_creation_input_tokens``):
    counted inside ``input_tokens``, and here on their own."""

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class RetryRecord(_Frozen):
    """One failed attempt (E-7): what failed and how long the adapter waited before the next one."""

    attempt: int
    error_class: str
    status_code: int | None = None
    waited_ms: float = 0.0
    message: str = ""


class ModelOutput(_Frozen):
    """What one model call produced, with its accounting (E-11).

    ``latency_ms`` is the duration of the attempt that succeeded; earlier failed attempts and the
    waits between them are in ``retries``. ``usd`` is None when no price is known (never a silent 0).
    """

    content: str | None
    tool_calls: list[ToolCallOut] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    usd: float | None = None
    price_known: bool = False
    latency_ms: float = 0.0
    retries: list[RetryRecord] = Field(default_factory=list)
    provider_request_json: str | None = None
    """The provider-level body the call sent, as its JSON text (``ensure_ascii=False``), redacted (E-11, O-30):
    the snapshot's ``providerRequest`` is this text, spliced in as it is; ``provider_request`` decodes it."""
    raw_response: dict[str, Any] | None = None
    cache_key: str | None = None
    """Set when the output was served from the response cache (``--cache``): no model was called."""
    cut: str | None = None
    """What the harness cut from an answer over its caps (``_cap``); None when it was kept whole."""
    reasoning: dict[str, Any] | None = None
    """What the provider returned for reasoning with this message (``_reasoning.reasoning_of``): the
    engine stores it on the assistant message so the next call of the tool loop sends it back."""
    sampling: dict[str, Any] = Field(default_factory=dict)
    """The sampling parameters sent with the call (``temperature``, ``top_p``, ``seed``); one the provider
    does not take is left out (and so absent here)."""

    @model_validator(mode="before")
    @classmethod
    def _body_as_text(cls, data: Any) -> Any:
        """An output written before the body was kept as text (a response cache entry's ``provider_request``,
        its decoded form): the same body, as the JSON text its snapshot wrote for it."""
        if isinstance(data, dict) and "provider_request" in data:
            data = dict(data)
            body = data.pop("provider_request")
            if "provider_request_json" not in data:
                data["provider_request_json"] = None if body is None else json.dumps(body, ensure_ascii=False)
        return data

    @property
    def provider_request(self) -> dict[str, Any] | None:
        """The provider body, decoded (a fresh value on each read)."""
        text = self.provider_request_json
        return None if text is None else json.loads(text)


ErrorKind = Literal["infrastructure", "provider_rejected", "context_window", "unsupported_input"]


MAINTAINER_TAG = "[context_maintainer]"
"""The first words of a maintainer request (E-13): scripted models tell the maintainer role by it."""


@runtime_checkable
class ChatModel(Protocol):
    """The one model interface: the litellm adapter and every scripted model implement it."""

    async def generate(self, request: ModelRequest) -> ModelOutput:
        """Send one request; return the output or raise ``ModelCallError``."""
        ...
