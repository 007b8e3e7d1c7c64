"""What the design review of a plan says, as report.json and ``harness validate --json`` carry it (O-2).

camelCase fields like the rest of report.json. A ``DesignReview`` lists the plan's comparisons as its
findings rules will make them (X-40, X-41) with what each can show at the planned n, and the design
findings: comparisons that cannot be separable, an expected effect the plan is underpowered for,
repeats that are one sample (temperature 0), required checks the plan makes impossible to exercise.
A finding with ``problem: true`` is a design problem (``harness validate --strict`` fails on it); one
with ``problem: false`` is a note.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from harness.stats import Spending, TestName

DesignKind = Literal["not-separable", "underpowered", "one-sample", "not-exercisable", "sequential"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Effect(_Out):
    control: float
    treatment: float


class FamilyDesign(_Out):
    """The plan's family at the planned n: what its first step can call separable, and at what family-wise size."""

    name: str = Field(description="analysis.family: findings or none.")
    method: str | None = Field(description="analysis.familyMethod (exact, holm); null for family none.")
    comparisons: int
    cutoff: float = Field(description="First-step cut-off: a comparison with p below it is separable whatever the "
                                      "others show (alpha itself under family none).")
    size: float = Field(description="The family-wise size at the cut-off: the largest chance over the common pass "
                                    "rates that any comparison crosses when no group differs.")
    exact: bool = Field(description="Is the size exact (every block enumerated), or an upper bound?")
    statement: str


class PlannedComparison(_Out):
    """One comparison of the plan's family in one stage, at the planned n per group: sized for the family's
    first step (the adjusted test), with its figures at alpha on its own beside."""

    stage: str
    group: str = Field(description="The group compared (B, C, v2).")
    other: str = Field(description="What it is compared with (the placement control A, the control v1).")
    n: int = Field(description="Planned trials of ``group`` in the stage (its repeats).")
    otherN: int
    smallestP: float = Field(description="The smallest two-sided p (the review's test) any outcome can reach at these "
                                         "n.")
    gated: bool = Field(False, description="Tested only after its block's other comparisons reject that every "
                                           "group is alike (B vs C): no first step of its own; figures at alpha.")
    cutoff: float | None = Field(None, description="The family's first-step cut-off it is sized for (alpha under "
                                                   "family none; null when gated and in reviews written before).")
    separablePossible: bool = Field(description="Can any outcome cross the cut-off (smallestP < cutoff; < alpha when "
                                                "gated or in reviews written before the family)?")
    nSeparable: int | None = Field(
        description="The n per group at which a complete difference (n/n vs 0/n) crosses the cut-off; null beyond the "
                    "search limit.")
    power: float | None = Field(None, description="Exact power at the planned n for the plan's effect, of crossing "
                                                  "the cut-off (a lower bound of the closed test's); null without one.")
    nForPower: int | None = Field(None, description="The smallest n per group reaching the target power for the "
                                                    "plan's effect at the family's cut-off; null without an effect or "
                                                    "when not reached.")
    powerAlone: float | None = Field(None, description="The same power, the comparison tested at alpha on its own.")
    nForPowerAlone: int | None = Field(None, description="The n for the target power at alpha on its own.")
    nSeparableAlone: int | None = Field(None, description="The n for a complete difference at alpha on its own.")


class SequentialReview(_Out):
    """A sequential stage's exactly calibrated design, before it runs: what ``harness power --looks`` prints."""

    stage: str
    looks: list[int]
    spending: Spending
    thresholds: list[float] = Field(description="Per look, the p-value cut-off: a comparison crosses when p < it.")
    typeOneError: list[float] = Field(description="Per look, the exact chance of a crossing by then without a real "
                                                  "difference, maximised over the common pass rate.")
    size: float = Field(description="The design's exact size (≤ alpha): the chance that any listed comparison "
                                    "crosses at some look when the groups do not differ (bonferroni: a bound).")
    comparisons: list[tuple[str, str]] = Field(default_factory=list, description="The listed comparisons (group, "
                                               "compared with) the thresholds are calibrated for together; every one "
                                               "crossing at one look stops the stage (reviews written before: none).")
    calibration: Literal["exact", "bonferroni"] | None = Field(
        None, description="exact: the comparisons' groups enumerated together; bonferroni: too many outcomes, each "
                          "calibrated at the α spent divided by their number.")
    earliestStop: int | None = Field(description="The first look at which a complete difference crosses (1-based); "
                                                  "null: none does.")
    power: float | None = Field(None, description="Exact power for the plan's effect, the chance that every listed "
                                                  "comparison crosses at one look (the first group of each at the "
                                                  "treatment rate, the second at the control rate); null without an "
                                                  "effect, or when powerNote says why.")
    expectedRepeats: float | None = Field(None, description="Repeats per group run on average at the plan's effect.")
    powerNote: str | None = Field(None, description="Why there is no power with an effect: a group that would need "
                                                    "both rates, or too many outcomes to enumerate.")
    fixedPower: float | None = Field(None, description="Exact power of one comparison in a fixed design at the last "
                                                       "look, for comparison.")


class DesignFinding(_Out):
    """One thing the review found: what, where, why it matters and how to fix it."""

    kind: DesignKind
    problem: bool = Field(description="true: a design problem (validate --strict fails); false: a note.")
    stage: str | None = None
    groups: list[str] = Field(default_factory=list)
    check: str | None = Field(None, description="The check concerned (not-exercisable).")
    statement: str
    fix: str | None = None


class DesignReview(_Out):
    """What a plan can show before it runs."""

    alpha: float
    test: TestName = Field(description="The test every p-value, power and threshold of the review is for.")
    targetPower: float
    effect: Effect | None
    family: FamilyDesign | None = Field(None, description="The family's first step (null in reviews written before).")
    comparisons: list[PlannedComparison]
    sequential: list[SequentialReview] = Field(default_factory=list)
    findings: list[DesignFinding]

    @model_validator(mode="before")
    @classmethod
    def _computed_is_not_input(cls, data: Any) -> Any:
        """report.json carries ``problems`` (computed); reading it back recomputes it. A review written before
        the test was a choice was Fisher's."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "problems"}
            data.setdefault("test", "fisher")
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def problems(self) -> int:
        """The design problems among the findings: ``harness validate --strict`` fails on any."""
        return sum(f.problem for f in self.findings)
