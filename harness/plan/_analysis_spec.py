"""The plan's ``analysis`` part: how comparisons are judged (X-41) and the effect the design is sized for."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TestName = Literal["boschloo", "fisher"]
FamilyName = Literal["findings", "none"]
FamilyMethod = Literal["exact", "holm"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class EffectSpec(_Model):
    """The difference a comparison is meant to see: pass rates of the comparator (the control side: A, v1)
    and of the group compared with it (B, C, v2)."""

    control: float = Field(ge=0, le=1, description="Expected pass rate of the control side, e.g. 0.9.")
    treatment: float = Field(ge=0, le=1, description="Expected pass rate of the compared group, e.g. 0.3.")

    @model_validator(mode="after")
    def _differs(self) -> EffectSpec:
        if self.control == self.treatment:
            raise ValueError("control and treatment rates are equal: there is no difference to size the plan for")
        return self


class AnalysisSpec(_Model):
    """The test, significance level, target power and the expected effect of the plan's comparisons."""

    test: TestName = Field(
        "boschloo", description="The two-sided exact test of every comparison, power figure and sequential threshold: "
        "boschloo (Boschloo's unconditional test, scipy.stats.boschloo_exact; with equal groups never less powerful "
        "than Fisher's, size at most alpha: 3/3 vs 0/3 gives p = 0.031) or fisher (Fisher's exact test: 3/3 vs 0/3 "
        "gives 0.10).")
    alpha: float = Field(0.05, gt=0, lt=1, description="Two groups are separable when the test's two-sided p < alpha.")
    power: float = Field(0.8, gt=0, lt=1, description="The power the design review asks of the expected effect.")
    family: FamilyName = Field(
        "findings", description="The comparisons held at alpha together: findings (every comparison the findings "
        "rules can claim, in every anomaly stage and, in a sweep, on every model: the chance of any false claim of "
        "difference among them is at most alpha; docs/evidence.md) or none (each comparison at alpha on its own, "
        "said so in the report).")
    familyMethod: FamilyMethod = Field(
        "exact", description="How the family is held: exact (a closed test whose intersections are tested with "
        "their exact null distribution, the most powerful here; Bonferroni within a block too large to enumerate) "
        "or holm (Holm's step-down on the p-values, which any reader can redo by hand).")
    effect: EffectSpec | None = Field(
        None, description='Expected pass rates, e.g. {"control": 0.9, "treatment": 0.3}: the design review then '
                          "gives each comparison's exact power at the planned n and the n that reaches `power`.")
