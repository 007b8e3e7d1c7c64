"""What the analysis produces, as it appears in report.json (O-2): findings, comparisons, caveats."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.plan import StageStatus  # noqa: F401  (re-exported: one owner of the stage statuses)
from harness.stats import TestName

ModelKind = Literal["scripted", "real"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Tested(_Out):
    """A p-value and the test it came from. Reports written before the test was a choice carry ``fisherP``
    and no ``test``: their p-values are Fisher's, and are read as such."""

    @model_validator(mode="before")
    @classmethod
    def _fisher_before(cls, data: Any) -> Any:
        if isinstance(data, dict) and "fisherP" in data:
            data = {**{k: v for k, v in data.items() if k != "fisherP"}, "pValue": data["fisherP"]}
        if isinstance(data, dict) and "test" not in data and "test" in cls.model_fields:
            data = {**data, "test": "fisher"}
        return data


class PairEvidence(_Tested):
    """One group against another in one stage: the counts and the two-sided p a finding rests on."""

    stage: str
    group: str
    passes: int
    n: int
    other: str
    otherPasses: int
    otherN: int
    pValue: float
    test: TestName
    adjustedP: float | None = Field(
        None, description="The p adjusted for the report's family of comparisons (analysis.family); null when the "
                          "family is none, in reports written before the family, and for a sequential crossing.")
    family: str | None = Field(None, description="The family the comparison belongs to (findings, none); null in "
                                                 "reports written before the family.")
    separable: bool = Field(description="adjustedP < alpha (p < alpha under family none, in reports written before "
                                        "the family, and for a sequential crossing: p < the look's threshold).")


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
        None, description="true: every difference the reading claims is separable (its family-adjusted p < the "
                          "plan's alpha), and the statement states the reading; false: some is not, and the "
                          "statement says what happened in these trials and that it is consistent with the reading, "
                          "not shown at this n; null: the rule claims no difference (control failed, nothing failed, "
                          "no verdict).")


class Comparison(_Tested):
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
    pValue: float | None = Field(description="Two-sided p of the counts; null when a side has no trial with a "
                                             "verdict.")
    test: TestName = Field(description="The test the p-values come from (the plan's analysis.test).")
    groupSamples: tuple[int, int] | None = Field(
        None, description="(passes, n) over the group's distinct answers, when its repeats are not sampled draws "
                          "(temperature 0 or unset) and gave fewer distinct answers than trials: identical repeats "
                          "are one sample repeated, so the comparison's effective n is this n. null: the trials "
                          "are the samples.")
    controlSamples: tuple[int, int] | None = None
    samplesP: float | None = Field(None, description="Two-sided p of the distinct answers (null as the samples are).")
    adjustedP: float | None = Field(
        None, description="The p adjusted for the report's family (analysis.family), of the distinct answers when they "
                          "are given; null when the comparison is not in the family, under family none, and in "
                          "reports written before the family.")
    family: str | None = Field(None, description="findings or none: the family the comparison was judged in; null "
                                                 "when it is in no family (a description, not a claim) and in "
                                                 "reports written before the family.")
    separable: bool | None = Field(description="adjustedP < the plan's alpha (under family none: p < alpha), on the "
                                               "distinct answers when they are given (never on repeats of one "
                                               "sample); null when not compared or not in the family.")
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
