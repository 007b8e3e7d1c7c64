"""The values that cross the model interface (E-4): one request in, one output out.

Per-call usage (`Usage`) adds with ``+`` so a run can sum its calls; the run-level total is the
caller's own type.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# Parameters the adapter owns; a request may not smuggle them in through ``extra``.
RESERVED_PARAMS = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "timeout", "max_tokens",
        "temperature", "top_p", "seed", "api_key", "api_base", "base_url", "num_retries", "max_retries",
        "modify_params", "litellm_call_id",
    }
)


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

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
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
    provider_request: dict[str, Any] | None = None
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


ErrorKind = Literal["infrastructure", "provider_rejected", "context_window", "unsupported_input"]


MAINTAINER_TAG = "[context_maintainer]"
"""The first words of a maintainer request (E-13): scripted models tell the maintainer role by it."""
