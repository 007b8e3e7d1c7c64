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

DesignKind = Literal["not-separable", "underpowered", "one-sample", "not-exercisable", "sequential"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Effect(_Out):
    control: float
    treatment: float


class PlannedComparison(_Out):
    """One comparison a findings rule will make in one stage, at the planned n per group."""

    stage: str
    group: str = Field(description="The group compared (B, C, v2).")
    other: str = Field(description="What it is compared with (the placement control A, the control v1).")
    n: int = Field(description="Planned trials of ``group`` in the stage (its repeats).")
    otherN: int
    smallestP: float = Field(description="The smallest two-sided Fisher p any outcome can reach at these n.")
    separablePossible: bool = Field(description="Can any outcome be separable (smallestP < alpha)?")
    nSeparable: int | None = Field(
        description="The n per group at which a complete difference (n/n vs 0/n) becomes separable at alpha; "
                    "null beyond the search limit.")
    power: float | None = Field(None, description="Exact power at the planned n for the plan's effect; null "
                                                  "without one.")
    nForPower: int | None = Field(None, description="The smallest n per group reaching the target power for the "
                                                    "plan's effect; null without an effect or when not reached.")


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
    targetPower: float
    effect: Effect | None
    comparisons: list[PlannedComparison]
    findings: list[DesignFinding]

    @model_validator(mode="before")
    @classmethod
    def _computed_is_not_input(cls, data: Any) -> Any:
        """report.json carries ``problems`` (computed); reading it back recomputes it."""
        if isinstance(data, dict) and "problems" in data:
            data = {k: v for k, v in data.items() if k != "problems"}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def problems(self) -> int:
        """The design problems among the findings: ``harness validate --strict`` fails on any."""
        return sum(f.problem for f in self.findings)
