"""report.json parts for the workflows around a run: the CI gate's expectations, the
command-line overrides of the plan, and the infrastructure trouble (retries, errors) per group."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

INFRA_KINDS: tuple[str, ...] = ("rate_limit", "server_error", "timeout", "connection", "malformed", "rejected",
                                "context_window", "unsupported_input", "other")
"""Kinds of a failed model call attempt, in the order reports list them (``harness.models.infra_kind``;
``unsupported_input`` is the run error of a scripted model that cannot read the plan's input, a set-up
error of the experiment, never retried)."""
INFRA_KIND_WORDS: dict[str, str] = {
    "rate_limit": "rate limit (429)", "server_error": "server error (5xx)", "timeout": "timeout",
    "connection": "connection lost", "malformed": "malformed response",
    "rejected": "request rejected (4xx, or a chat template's error)",
    "context_window": "context window exceeded",
    "unsupported_input": "set-up: the scripted model cannot read this input", "other": "other",
}
NOT_RETRIED_KINDS = frozenset({"unsupported_input", "rejected"})
"""Error kinds whose trials are never retried: a new trial would read the same input the same way
(``unsupported_input``), or send the same request the provider refused with a 4xx (``rejected``,
the run error ``provider_rejected``: deterministic, P-80)."""
SETUP_KINDS = frozenset({"unsupported_input"})
"""Of those, the set-up errors of the experiment (a scripted model that cannot read the input)."""
ERROR_CLASS_KINDS: dict[str, str] = {"context_window": "context_window", "provider_rejected": "rejected",
                                     "unsupported_input": "unsupported_input"}
"""A run's ``error_class`` → the kind of the call that ended it (``INFRA_KINDS``)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExpectationResult(_Model):
    """One ``GROUP:STAGE=STATUS`` expectation and what the run found."""

    group: str
    stage: str
    expected: str
    actual: str = Field(description="The stage's status in this run; not_selected when --group/--stage left it "
                                    "out (an expectation about a stage that did not run is not met).")
    met: bool
    source: Literal["plan", "cli"] = Field(description="The plan's expect list, or --expect (which wins).")

    @property
    def text(self) -> str:
        return f"{self.group}:{self.stage}={self.expected}"


class Override(_Model):
    """One value of the plan replaced on the command line (--temperature, --seed, --repeats)."""

    path: str = Field(description="JSON path of the plan field, e.g. $.models.sampling.temperature.")
    option: str = Field(description="The command-line option as given, e.g. --repeats simple=5.")
    plan: Any = Field(description="The plan's value.")
    value: Any = Field(description="The value the run used.")


class GroupInfrastructure(_Model):
    """What the provider did to one group's model calls: failed attempts by kind, retries, calls that
    gave up, trials that ended as infrastructure errors. None of it is a model failure."""

    group: str
    calls: int = Field(0, description="Model calls (each may have had several attempts).")
    retries: int = Field(0, description="Attempts made again after a failed one.")
    failedAttempts: dict[str, int] = Field(default_factory=dict, description="Failed attempts by kind.")
    failedCalls: dict[str, int] = Field(
        default_factory=dict, description="Calls that ended in an error after their retries, by the last kind.")
    errorTrials: int = Field(0, description="Trials that ended as an error (infrastructure or set-up).")
    errorKinds: dict[str, int] = Field(
        default_factory=dict, description="Error trials by the kind of the call that ended them (INFRA_KINDS).")
    notSent: int = Field(0, description="Requests not sent at all: the provider had refused the very same request "
                                         "(but for its seed) earlier in the run, deterministically; not model calls.")
    retriedTrials: int = Field(
        0, description="Error trials followed by a new trial of the same repeat (at most the plan's "
                       "stop.infraRetries per repeat; unsupported_input never).")

    @property
    def troubled(self) -> bool:
        return bool(self.retries or self.failedAttempts or self.failedCalls or self.errorTrials)


def kinds_text(counts: dict[str, int]) -> str:
    """``{"timeout": 2, "rate_limit": 1}`` → ``"rate limit (429) 1, timeout 2"`` (report order)."""
    order = {k: i for i, k in enumerate(INFRA_KINDS)}
    return ", ".join(f"{INFRA_KIND_WORDS.get(k, k)} {n}" for k, n in sorted(counts.items(),
                                                                            key=lambda kv: order.get(kv[0], 99)))
