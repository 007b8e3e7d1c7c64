"""What the analysis produces, as it appears in report.json (O-2): findings, comparisons, caveats."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.plan import StageStatus  # noqa: F401  (re-exported: one owner of the stage statuses)

ModelKind = Literal["scripted", "real"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PairEvidence(_Out):
    """One group against another in one stage: the counts and two-sided Fisher p a finding rests on."""

    stage: str
    group: str
    passes: int
    n: int
    other: str
    otherPasses: int
    otherN: int
    fisherP: float
    separable: bool


class Finding(_Out):
    """One rule of X-40 that fired, with what it does not allow one to conclude."""

    rule: str
    statement: str
    doesNotShow: str
    basis: dict[str, dict[str, StageStatus]] = Field(
        description="group → anomaly stage → status: the outcomes the rule was applied to."
    )
    sentinelReproduced: bool | None = Field(description="Did the v2 sentinel fail (reproduce)? null = unknown.")
    sentinelStatement: str
    limitedBy: list[str] = Field(default_factory=list, description="Groups without a verdict, and why.")
    restsOn: list[PairEvidence] = Field(
        default_factory=list, description="The comparisons the rule's reading rests on, per anomaly stage in which "
                                          "both groups have a verdict (empty: no comparison could be made).")
    shown: bool | None = Field(
        None, description="true: every difference the reading claims is separable (p < the plan's alpha), and the "
                          "statement "
                          "states the reading; false: some is not, and the statement says what happened in these "
                          "trials and that it is consistent with the reading, not shown at this n; null: the rule "
                          "claims no difference (control failed, nothing failed, no verdict).")


class Comparison(_Out):
    """A group against the placement control in one stage (X-41)."""

    stage: str
    group: str
    control: str
    groupPasses: int
    groupN: int
    controlPasses: int
    controlN: int
    groupWilson95: tuple[float, float] | None
    controlWilson95: tuple[float, float] | None
    fisherP: float | None
    separable: bool | None
    statement: str


class ConversationOutcome(_Out):
    """One group's totals in the baseline stage: the X-43 input."""

    status: StageStatus
    passes: int = 0
    n: int = 0
    trials: int = 0
    repeatedToolCalls: int = 0
    duplicateSignatureCalls: int = 0
    inputTokens: int = 0
    cachedInputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = 0.0
    maintenanceRuns: int = 0


class BaselineComparison(_Out):
    """A unified group against the prefix@2 baseline in the conversation stage (X-43), as data."""

    stage: str
    group: str
    baseline: str
    groupOutcome: ConversationOutcome
    baselineOutcome: ConversationOutcome
    repeatedToolCallsDelta: int
    totalTokensDelta: int
    usdDelta: float | None
    usdRatio: float | None = Field(description="group usd / baseline usd; null when either is unknown or 0.")
    statement: str


class FindingsResult(_Out):
    findings: list[Finding]
    caveats: list[str]
