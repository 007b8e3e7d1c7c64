"""Argument models of the context tools; their JSON Schema is what the model is offered.

Every model forbids unknown keys, so the authorisation fields of the host (``revision``,
``upperBound``, ``sessionId``) cannot be smuggled in through arguments (P-40), and is strict:
``true`` is no integer and ``"5"`` no number, so a model's mistake is named, never coerced into a
value it did not send. Names are camelCase on the wire (``windowId``), snake_case in Python.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from .._text import utf16_len

SUMMARY_MAX_UNITS = 2000
PAGE_MAX = 50
WINDOW_ID_PATTERN = r"^[^/\s]{1,64}$"

_WINDOW_ID = "A window id: 1–64 characters, no '/' and no whitespace (e.g. 'alpha')."
_HANDOFF = "Handoff: what was finished, what comes next, where to return."
_EXPECTED = ("The window you believe is active right now (the context_state message says which). "
             "A different value is refused with context_window_mismatch and changes nothing.")


class ToolArgs(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", frozen=True, strict=True)

    purpose: str = Field(min_length=1, description="Why you call this tool now, in a few words.")

    @field_validator("purpose")
    @classmethod
    def _purpose_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("purpose must not be blank")
        return value


# reused window tools -------------------------------------------------------------------------
class WindowOpenArgs(ToolArgs):
    window_id: str = Field(pattern=WINDOW_ID_PATTERN, description="The destination window. " + _WINDOW_ID)
    goal: str | None = Field(None, min_length=1, description="The window's goal; required to create one.")
    input: str | None = Field(None, description=_HANDOFF)
    resume: bool = Field(False, description="true resumes an existing window; false creates a new one.")


class WindowOpenArgsV2(WindowOpenArgs):
    input: str = Field(min_length=1, description=_HANDOFF)
    expected_window_id: str = Field(min_length=1, description=_EXPECTED)


class MemorySetArgs(ToolArgs):
    memory: str = Field(description="The new working memory of the active window (replaces the old one).")


class MemorySetArgsV2(MemorySetArgs):
    expected_window_id: str = Field(min_length=1, description=_EXPECTED)


class WindowCompleteArgs(ToolArgs):
    result: str = Field(min_length=1, description="The window's result, handed back where it came from.")


class WindowCompleteArgsV2(WindowCompleteArgs):
    expected_window_id: str = Field(min_length=1, description=_EXPECTED)


class WindowListArgs(ToolArgs):
    offset: int = Field(0, ge=0)
    limit: int = Field(20, ge=1, le=PAGE_MAX)


class WindowSearchArgs(ToolArgs):
    query: str = Field(min_length=1, description="Text to find in this session's raw messages (any case).")
    window_id: str | None = Field(None, pattern=WINDOW_ID_PATTERN, description="Only this window's messages.")
    limit: int = Field(20, ge=1, le=PAGE_MAX)


class WindowReadArgs(ToolArgs):
    window_id: str = Field(pattern=WINDOW_ID_PATTERN, description="The window whose raw messages to read.")
    after_index: int = Field(-1, ge=-1, description="Read messages with a larger index (use nextAfterIndex).")
    limit: int = Field(20, ge=1, le=PAGE_MAX)


class TaskMemorySetArgs(ToolArgs):
    memory: str = Field(description="Cross-window goals, constraints and progress (replaces taskMemory).")


# new in unified@1 ----------------------------------------------------------------------------
class HistoryListArgs(ToolArgs):
    after_index: int = Field(-1, ge=-1, description="List groups starting after this index (nextAfterIndex).")
    limit: int = Field(20, ge=1, le=PAGE_MAX)


class FoldCreateArgs(ToolArgs):
    from_index: int = Field(ge=1, description="First index of a group from context_history_list.")
    through_index: int = Field(ge=1, description="Last index of a group from context_history_list.")
    summary: str = Field(
        min_length=1,
        max_length=SUMMARY_MAX_UNITS,
        description=f"Your own summary of the folded work, 1–{SUMMARY_MAX_UNITS} characters (UTF-16 units).",
    )

    @field_validator("summary")
    @classmethod
    def _summary_units(cls, value: str) -> str:
        # max_length counts code points; the protocol counts UTF-16 units (an emoji counts 2)
        units = utf16_len(value)
        if units > SUMMARY_MAX_UNITS:
            raise ValueError(f"summary is {units} UTF-16 units long; at most {SUMMARY_MAX_UNITS} are allowed")
        if not value.strip():
            raise ValueError("summary must not be blank")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> FoldCreateArgs:
        if self.from_index > self.through_index:
            raise ValueError(f"fromIndex {self.from_index} is after throughIndex {self.through_index}")
        return self


class FoldCreateArgsV2(FoldCreateArgs):
    expected_window_id: str = Field(min_length=1, description=_EXPECTED)


class FoldListArgs(ToolArgs):
    window_id: str | None = Field(None, pattern=WINDOW_ID_PATTERN, description="Default: the active window.")
    offset: int = Field(0, ge=0)
    limit: int = Field(20, ge=1, le=PAGE_MAX)


class CompressArgs(ToolArgs):
    """``context_compress``: nothing but ``purpose``; the host picks the boundary (P-53)."""


class CompressArgsV2(CompressArgs):
    expected_window_id: str = Field(min_length=1, description=_EXPECTED)


class FoldReadArgs(ToolArgs):
    fold_id: str = Field(min_length=1)
    cursor: int = Field(0, ge=0, description="UTF-16 offset to read from (use nextCursor).")
