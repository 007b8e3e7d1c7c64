"""A stage's opt-in sequential design (X-12, X-13, X-41): looks at the outcomes before the last repeat.

``stages[].sequential: {"looks": [4, 8, 12, 16, 20], "spending": "obrien-fleming", "comparisons":
[["B", "A"], ["C", "A"]]}``: the stage's groups run up to each look and wait there for each other;
after a look every listed comparison's p is tested against that look's threshold, calibrated exactly for
the listed comparisons together so that the chance of any crossing by the look stays within the α its
spending function has spent by then (``harness.stats.calibrated``), and when every one has crossed the
stage stops for all its groups. ``looks`` ascend strictly, the last
is the stage's ``repeats``; ``comparisons`` default to the findings rules' pairs among the stage's
groups (``FindingsSpec.pairs``; ``_sequential_checks``). A sequential stage is never ``failFast``
(a failed trial is data here, not a reason to stop), and ``--repeats`` may set it only to its last look.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SpendingName = Literal["obrien-fleming", "pocock"]
Pair = Annotated[list[str], Field(min_length=2, max_length=2)]
"""``[group, compared with]``, e.g. ``["B", "A"]``."""


class SequentialSpec(BaseModel):
    """Looks (repeats done at each), the α spending function and the comparisons that decide a stop."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    looks: list[int] = Field(min_length=1, description="Repeats per group done at each look, strictly ascending; "
                                                       "the last equals the stage's repeats.")
    spending: SpendingName = Field("obrien-fleming", description="Lan–DeMets α spending: obrien-fleming spends "
                                   "almost nothing early, pocock about evenly over the looks.")
    comparisons: list[Pair] | None = Field(
        None, description='Pairs [group, compared with], e.g. [["B", "A"], ["C", "A"]]; the stage stops when every '
                          "one has crossed. null: the findings rules' pairs (B and C vs the placement control, v2 vs "
                          "the control) among the stage's groups.")

    @field_validator("looks")
    @classmethod
    def _ascending(cls, value: list[int]) -> list[int]:
        if any(n < 1 for n in value):
            raise ValueError(f"a look is a number of repeats, at least 1 (got {value})")
        if any(b <= a for a, b in zip(value, value[1:], strict=False)):
            raise ValueError(f"looks must ascend strictly (got {value})")
        return value

    @field_validator("comparisons")
    @classmethod
    def _distinct(cls, value: list[list[str]] | None) -> list[list[str]] | None:
        for pair in value or []:
            if pair[0] == pair[1]:
                raise ValueError(f"a comparison needs two different groups (got {pair})")
        if value is not None and len({tuple(p) for p in value}) < len(value):
            raise ValueError("a comparison is listed twice")
        return value
