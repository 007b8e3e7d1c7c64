"""Check definitions of a plan (X-4, the check table of 03-experiments.md).

A check is a pydantic model discriminated by ``name``. Turn checks look at one run (one input);
trial checks look at the whole trial. Evaluating the answer checks needs only the final answer,
so they carry ``evaluate``; the others need the trial's runs, snapshots and store and are
evaluated by the runner.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from ._matching import contains_date, contains_number, contains_regex, contains_text, parse_date_spec


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _compiles(pattern: str) -> str:
    """Compile a pattern as it will be matched (``contains_regex``). Python's parser raises more
    than ``re.error``: ``a{4294967296}`` an OverflowError, a thousand nested groups a RecursionError."""
    try:
        re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, RecursionError) as exc:
        reason = "its groups are nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        shown = pattern if len(pattern) <= 60 else pattern[:60] + "…"
        raise ValueError(f"{shown!r} is not a valid regular expression: {reason}") from None
    return pattern


Regex = Annotated[str, AfterValidator(_compiles)]


class AnswerContains(_Check):
    """The final answer contains texts / numbers (with tolerance) / dates / regex matches."""

    name: Literal["answer_contains"]
    texts: list[str] = Field(default_factory=list)
    numbers: list[float] = Field(default_factory=list)
    tolerance: float = Field(0.0, ge=0, description="Absolute tolerance for numbers.")
    dates: list[str] = Field(
        default_factory=list,
        description="YYYY-MM-DD (the year must appear) or MM-DD (any year or none); any common format.",
    )
    regexes: list[Regex] = Field(default_factory=list)
    match: Literal["all", "any"] = "all"

    @field_validator("dates")
    @classmethod
    def _dates(cls, value: list[str]) -> list[str]:
        for spec in value:
            parse_date_spec(spec)
        return value

    @model_validator(mode="after")
    def _not_empty(self) -> AnswerContains:
        if not (self.texts or self.numbers or self.dates or self.regexes):
            raise ValueError("answer_contains needs at least one of texts, numbers, dates, regexes")
        return self

    def evaluate(self, answer: str | None) -> tuple[bool, str]:
        """``(passed, detail)``; the detail names what was missing."""
        text = answer or ""
        results: list[tuple[str, bool]] = []
        results += [(f"text {t!r}", contains_text(text, t)) for t in self.texts]
        results += [(f"number {n:g}", contains_number(text, n, self.tolerance)) for n in self.numbers]
        results += [(f"date {d}", contains_date(text, d)) for d in self.dates]
        results += [(f"regex /{r}/", contains_regex(text, r)) for r in self.regexes]
        found = [what for what, ok in results if ok]
        missing = [what for what, ok in results if not ok]
        passed = any(ok for _, ok in results) if self.match == "any" else all(ok for _, ok in results)
        if passed:
            return True, "found " + ", ".join(found)
        return False, f"missing ({self.match}) " + ", ".join(missing)


class AnswerNotContains(_Check):
    """None of the texts / regexes occur in the final answer."""

    name: Literal["answer_not_contains"]
    texts: list[str] = Field(default_factory=list)
    regexes: list[Regex] = Field(default_factory=list)

    @model_validator(mode="after")
    def _not_empty(self) -> AnswerNotContains:
        if not (self.texts or self.regexes):
            raise ValueError("answer_not_contains needs at least one of texts, regexes")
        return self

    def evaluate(self, answer: str | None) -> tuple[bool, str]:
        text = answer or ""
        hits = [f"text {t!r}" for t in self.texts if contains_text(text, t)]
        hits += [f"regex /{r}/" for r in self.regexes if contains_regex(text, r)]
        return (not hits), ("found " + ", ".join(hits)) if hits else "none of the forbidden texts occur"


class ToolCalled(_Check):
    """The named tool was called between ``min`` and ``max`` times in the run."""

    name: Literal["tool_called"]
    tool: str = Field(min_length=1)
    min: int = Field(1, ge=0)
    max: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _range(self) -> ToolCalled:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self


class ToolNotCalled(_Check):
    name: Literal["tool_not_called"]
    tool: str = Field(min_length=1)


class RunCompleted(_Check):
    name: Literal["run_completed"]


class _Preconditioned(_Check):
    """A trial check that verifies something only once it happened (a request, a mismatch, a stored
    memory, a fold, a compression). When it never happened the check ends ``not_exercised``: it has
    not passed. ``required`` says whether that keeps the trial from passing."""

    required: bool = Field(
        True,
        description="true: a trial in which this check was not exercised (its precondition never occurred) "
        "does not pass (failure mode not_exercised). false: it is reported as not exercised but does not "
        "decide the verdict; use it for preconditions the stage cannot demand of a model, e.g. a "
        "window_mismatch_recovered check on a model that may never write to a wrong window.",
    )


class StateInEveryRequest(_Preconditioned):
    """(v2, v3) every request holds exactly one context_state at the configured placement."""

    name: Literal["state_in_every_request"]


class WindowMismatchRecovered(_Preconditioned):
    """Every context_window_mismatch changed nothing and the run still completed; not exercised
    when no mismatch occurred."""

    name: Literal["window_mismatch_recovered"]


class MemoryPreserved(_Preconditioned):
    """Windows whose memory held ``contains`` after turn ``afterTurn`` still hold it; none holds
    a ``forbidden`` text. Strings match as dates, amounts or text (see ``_matching.mentions``).
    Not exercised when no window held ``contains`` after that turn (nothing to preserve)."""

    name: Literal["memory_preserved"]
    afterTurn: int = Field(ge=1, description="1-based turn after which the memory is captured.")
    contains: list[str] = Field(min_length=1)
    forbidden: list[str] = Field(default_factory=list)


class FoldReadback(_Preconditioned):
    """Every fold reads back equal to its raw messages; not exercised when the trial made no fold."""

    name: Literal["fold_readback"]


class CompressionReadback(_Preconditioned):
    """Every fold a compression covered still reads back raw; not exercised when no compression
    covered a fold."""

    name: Literal["compression_readback"]


class SameSession(_Check):
    name: Literal["same_session"]


TurnCheck = Annotated[
    AnswerContains | AnswerNotContains | ToolCalled | ToolNotCalled | RunCompleted,
    Field(discriminator="name"),
]
TrialCheck = Annotated[
    StateInEveryRequest | WindowMismatchRecovered | MemoryPreserved | FoldReadback | CompressionReadback
    | SameSession,
    Field(discriminator="name"),
]

TURN_CHECKS: tuple[str, ...] = (
    "answer_contains", "answer_not_contains", "tool_called", "tool_not_called", "run_completed",
)
TRIAL_CHECKS: tuple[str, ...] = (
    "state_in_every_request", "window_mismatch_recovered", "memory_preserved", "fold_readback",
    "compression_readback", "same_session",
)
