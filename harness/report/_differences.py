"""The difference panel of report.json (issue 9): what a group's requests differ in from the control's.

A controlled comparison is only controlled if its groups differ where the plan says. For each group
against the placement control, on the first request of the first stage both ran: the system prompt
word by word, the tools whose schema differs, both role sequences, where the state message sits and
in which role, how the state text differs, and which other messages differ at all; and, computed
from those, what the group differs in against what the design lets it differ in (``_difference_text``).
"""

from __future__ import annotations

import difflib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WordChange(_Model):
    """One difference of a word-level diff: the control's words and the group's words."""

    op: Literal["insert", "delete", "replace"]
    control: str = Field(description="The control's words (empty for an insertion).")
    group: str = Field(description="The group's words (empty for a deletion).")


def word_diff(control: str, group: str) -> list[WordChange]:
    """The words that differ between two texts (whitespace-separated words; empty when identical)."""
    a, b = control.split(), group.split()
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [WordChange(op=op, control=" ".join(a[i1:i2]), group=" ".join(b[j1:j2]))
            for op, i1, i2, j1, j2 in ops if op != "equal"]


class RolePair(_Model):
    control: list[str]
    group: list[str]


class StatePlace(_Model):
    position: int = Field(description="0-based index of the context_state message in the request.")
    role: str


class StateDifference(_Model):
    control: StatePlace | None = Field(description="null: the control's request has no context_state message.")
    group: StatePlace | None
    text: list[WordChange] = Field(default_factory=list, description="Word diff of the two state texts.")


class GroupDifference(_Model):
    group: str
    control: str
    stage: str = Field(description="The first stage (in plan order) both groups ran.")
    groupRequest: str = Field(description="Snapshot id of the group's request compared.")
    controlRequest: str
    systemPrompt: list[WordChange] = Field(description="Word-level diff; empty when the prompts are identical.")
    tools: list[str] = Field(description="Tools whose schema differs or that only one side offers.")
    messageRoles: RolePair
    stateMessage: StateDifference
    otherMessages: list[str] = Field(
        default_factory=list,
        description="Messages other than system and state whose content differs (segment and position), or "
                    "a note that the two histories differ in length.")
    differsIn: list[str] = Field(
        default_factory=list,
        description="What the two requests differ in, computed from them: systemPrompt, tools, messageRoles (of the "
                    "messages other than the state message), stateMessage (present on one side only), statePosition, "
                    "stateRole, stateText, otherMessages.")
    expected: list[str] | None = Field(
        None, description="What the design lets this group differ in from the placement control (same names); null "
                          "for a group without a single-variable design (the control v1, the baseline).")
    summary: str = Field("", description="differsIn in words, with the source's words for each designed difference "
                                         "and whether the comparison is as designed (empty in older reports).")
