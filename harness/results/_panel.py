"""The difference panel's part of report.json (``groupDifferences``, O-2): what a group's first request
differs in from the placement control's, as the harness built it and (``wire``) as each provider received
it. Computed by ``_differences``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.wire import WireDifference


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WordChange(_Model):
    """One difference of a word-level diff: the placement control's words and the group's words."""

    op: Literal["insert", "delete", "replace"]
    control: str = Field(description="The control's words (empty for an insertion).")
    group: str = Field(description="The group's words (empty for a deletion).")


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
    toolsOneSided: list[str] = Field(
        default_factory=list, description="Of ``tools``, those only one side offers; the others are offered by both "
                                          "with another definition (schema or description).")
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
                          "for a group without a single-variable design (the sentinel control v1, the baseline).")
    summary: str = Field("", description="differsIn in words, with the source's words for each designed difference "
                                         "and whether the comparison is as designed (empty in older reports).")
    wire: list[WireDifference] = Field(
        default_factory=list, description="Per provider of the run's model: both requests as the provider receives "
                                          "them (turns, where the state went, prefill); none for scripted models.")
