"""The family of a report's claims of difference (X-40, X-41): which comparisons it holds, and their
family-adjusted p-values (``harness.stats`` adjusts).

A report's findings may claim a difference on any comparison its rules rest on; a reader takes them together,
so the plan's ``analysis.family`` declares them one family, held at α: the chance of any false claim of
difference in it is at most α. ``findings`` (the default) is every comparison the findings rules can claim, in
every anomaly stage, and in a sweep on every model:

- ``placement-rates``: per stage, B vs A and C vs A (the placements against the placement control) and B vs C
  (which placement does better, tested only after the placement control's comparisons reject A = B = C: a
  *triangle*), and v2 vs v1 (the sentinel against the sentinel control: a block of its own);
- ``placement-v3``: per stage, every pair of A, B, C, v1 and v2 (its readings rest on all ten: A vs B and C, B
  vs C, each placement vs v1, v2 vs each placement and v1), bounded within the stage by Bonferroni: the five
  groups' joint outcomes are too many to enumerate at the n it is run with, and none of its readings at
  n = 3 could be separable under any family of two or more comparisons (3/3 vs 0/3, p = 0.031).

``none`` holds each comparison at α on its own (no adjustment), and says so. A comparison is decided on its
independent samples when the repeats are not sampled draws (the distinct answers; ``_comparisons``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.plan import FindingsSpec
from harness.stats import (
    METHOD_TITLES,
    Block,
    FamilyMethod,
    FirstStep,
    TestName,
    adjusted,
    first_step,
    p_value,
)

FamilyName = Literal["findings", "none"]
FAMILIES: tuple[FamilyName, ...] = ("findings", "none")
Counts = tuple[int, int]
CountsByGroup = Mapping[str, Mapping[str, Counts]]
Key = tuple[str | None, str, frozenset[str]]
"""(model, stage, the two groups): a comparison of the family, whichever way round it is read."""


def key(stage: str, group: str, other: str, model: str | None = None) -> Key:
    return model, stage, frozenset((group, other))


def stage_blocks(spec: FindingsSpec, present: Sequence[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The family's blocks of one stage among the groups with a verdict there: (kind, its comparisons as
    (group, other)), the control of a star or triangle the ``other`` of its first comparison."""
    a, b, c, v1, v2 = spec.placementControl, spec.positionGroup, spec.roleGroup, spec.controlGroup, spec.sentinelGroup
    have = set(present)
    if spec.rules == "placement-v3":  # each pair read against the more control-like group: v1, then A, B, C
        names = [g for g in (v1, a, b, c, v2) if g in have]
        pairs = [(g, o) for i, o in enumerate(names) for g in names[i + 1:]]
        return [("union", pairs)] if pairs else []
    out: list[tuple[str, list[tuple[str, str]]]] = []
    if {a, b, c} <= have:
        out.append(("triangle", [(b, a), (c, a), (b, c)]))
    else:
        out += [("star", [(g, o)]) for g, o in ((b, a), (c, a), (b, c)) if {g, o} <= have]
    if {v1, v2} <= have:
        out.append(("star", [(v2, v1)]))
    return out


def block_of(kind: str, pairs: Sequence[tuple[str, str]], ns: Mapping[str, int], test: TestName) -> Block:
    """The ``Block`` of ``stage_blocks``' (kind, pairs): its groups in order (a star's or triangle's control
    first, then the groups compared with it), ``ns[group]`` trials each, its pairs as indices."""
    if kind == "union":
        order = list(dict.fromkeys(g for pair in pairs for g in pair))
    else:
        order = [pairs[0][1], *dict.fromkeys(g for g, o in pairs if o == pairs[0][1])]
    index = {g: i for i, g in enumerate(order)}
    return Block(kind, tuple(ns[g] for g in order), tuple((index[g], index[o]) for g, o in pairs),  # type: ignore[arg-type]
                 test)


def family_pairs(spec: FindingsSpec) -> list[tuple[str, str]]:
    """Every comparison the default family holds in one stage where every group takes part."""
    groups = [spec.placementControl, spec.positionGroup, spec.roleGroup, spec.controlGroup, spec.sentinelGroup]
    return [p for _, pairs in stage_blocks(spec, groups) for p in pairs]


class FamilySummary(BaseModel):
    """How a report's comparisons were held together (report.json ``family``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: FamilyName = Field(description="findings: every comparison the findings rules can claim, held at alpha "
                                         "together; none: each comparison at alpha on its own.")
    method: FamilyMethod | None = Field(description="exact: the exact closed test; holm: Holm's step-down; null "
                                                    "for family none.")
    comparisons: int = Field(description="Comparisons in the family (each with a p-value).")
    alpha: float
    cutoff: float | None = Field(None, description="First-step cut-off: a comparison with p below it is "
                                                   "separable whatever the others show.")
    size: float | None = Field(None, description="The family-wise size at the cut-off: the largest chance over "
                                                 "the common pass rates that any comparison crosses when no group "
                                                 "differs (exact when exact is true, else an upper bound).")
    exact: bool | None = Field(None, description="Was every block's null distribution enumerated (size exact)? false: "
                                                 "some block is held by Bonferroni (size an upper bound).")
    statement: str

    def line(self) -> str:
        """``p-values adjusted for 4 comparisons (exact closed test); first-step cut-off 0.0182, family-wise size
        0.0476 ≤ α = 0.05.``: what a report says once, where its findings are."""
        out = f"p-values {self.statement}"
        if self.name != "none" and self.cutoff is not None and self.size is not None:
            out += (f"; first-step cut-off {self.cutoff:.3g}, family-wise size {'' if self.exact else 'at most '}"
                    f"{self.size:.3g} ≤ α = {self.alpha:g}")
        return out + "."


@dataclass
class FamilyResult:
    """Each comparison's adjusted p, and the family's description."""

    summary: FamilySummary
    adjusted: dict[Key, float] = field(default_factory=dict)
    raw: dict[Key, float] = field(default_factory=dict)

    def view(self, model: str | None) -> FamilyResult:
        """The same family with only ``model``'s comparisons, read as a single run's (model None)."""
        def mine(values: dict[Key, float]) -> dict[Key, float]:
            return {(None, s, pair): v for (m, s, pair), v in values.items() if m == model}
        return FamilyResult(self.summary, mine(self.adjusted), mine(self.raw))

    def get(self, stage: str, group: str, other: str, model: str | None = None) -> float | None:
        """The adjusted p of a comparison in the family; None when it is not in it."""
        return self.adjusted.get(key(stage, group, other, model))

    @property
    def name(self) -> FamilyName:
        return self.summary.name

    def separable(self, stage: str, group: str, other: str, alpha: float, model: str | None = None) -> bool | None:
        found = self.get(stage, group, other, model)
        return None if found is None else found < alpha


def method_text(name: FamilyName, method: FamilyMethod | None, count: int, within: str = "") -> str:
    """``adjusted for 4 comparisons (exact closed test)`` / ``not adjusted …``; ``within``: how blocks that are
    not enumerated are held (Bonferroni within a stage's pairs)."""
    if name == "none" or method is None:
        return "not adjusted for multiple comparisons (analysis.family none: each comparison at α on its own)"
    how = METHOD_TITLES[method] + (f"; {within}" if within and method == "exact" else "")
    return f"adjusted for {count} comparison{'' if count == 1 else 's'} ({how})"


def within_text(blocks: Sequence[Block]) -> str:
    """How the family's blocks that are not enumerated exactly are held, in words."""
    parts = []
    if any(b.kind == "union" for b in blocks):
        parts.append("Bonferroni within each stage's pairs of the five groups")
    if any(b.kind != "union" and not b.exact for b in blocks):
        parts.append("Bonferroni within a stage whose outcomes are too many to enumerate")
    return "; ".join(parts)


def build_family(spec: FindingsSpec, counts: Mapping[str | None, CountsByGroup], alpha: float, test: TestName,
                 name: FamilyName = "findings", method: FamilyMethod = "exact",
                 samples: Mapping[str | None, CountsByGroup | None] | None = None) -> FamilyResult:
    """The family over every model (``counts``: model → group → stage → (passes, n); None for a single run) and
    anomaly stage, adjusted together. ``samples``: per model, the independent samples behind the counts when
    the repeats are not sampled draws; a comparison is decided on those then."""
    blocks: list[Block] = []
    keys: list[list[Key]] = []
    pvalues: list[list[float]] = []
    for model, by_group in counts.items():
        deciding = (samples or {}).get(model) or by_group
        for stage in spec.anomalyStages:
            present = [g for g, per in deciding.items() if per.get(stage, (0, 0))[1] > 0
                       and by_group.get(g, {}).get(stage, (0, 0))[1] > 0]
            for kind, pairs in stage_blocks(spec, present):
                blocks.append(block_of(kind, pairs, {g: deciding[g][stage][1] for g in present}, test))
                keys.append([key(stage, g, o, model) for g, o in pairs])
                pvalues.append([p_value(*deciding[g][stage], *deciding[o][stage], test) for g, o in pairs])
    count = sum(len(k) for k in keys)
    raw = {k: p for ks, ps in zip(keys, pvalues, strict=True) for k, p in zip(ks, ps, strict=True)}
    if name == "none" or not blocks:
        summary = FamilySummary(name=name, method=None if name == "none" else method, comparisons=count,
                                alpha=alpha, statement=method_text(name, None if name == "none" else method, count))
        return FamilyResult(summary, dict(raw), raw)
    values = adjusted(blocks, pvalues, method)
    step: FirstStep = first_step(blocks, alpha, method)
    summary = FamilySummary(name=name, method=method, comparisons=count, alpha=alpha, cutoff=step.cutoff,
                            size=step.size, exact=step.exact,
                            statement=method_text(name, method, count, within_text(blocks)))
    return FamilyResult(summary, {k: v for ks, vs in zip(keys, values, strict=True)
                                  for k, v in zip(ks, vs, strict=True)}, raw)


Family = FamilyResult | FamilyName
"""What a rules function is given: a family already adjusted (a sweep's, viewed for one model), or the name of
the family to build from the run's own counts."""


def families(spec: FindingsSpec, counts: Mapping[str | None, CountsByGroup], alpha: float, test: TestName,
             name: FamilyName = "findings", method: FamilyMethod = "exact",
             samples: Mapping[str | None, CountsByGroup | None] | None = None) -> tuple[FamilyResult, FamilyResult]:
    """(the family deciding each comparison: on the independent samples where given, the same family as if the
    repeats were independent draws: on the counts; one object when no model has samples)."""
    deciding = build_family(spec, counts, alpha, test, name, method, samples)
    if not samples or all(v is None for v in samples.values()):
        return deciding, deciding
    return deciding, build_family(spec, counts, alpha, test, name, method)


def run_families(spec: FindingsSpec, counts: CountsByGroup, samples: CountsByGroup | None, alpha: float,
                 test: TestName, family: Family = "findings", method: FamilyMethod = "exact",
                 as_counts: FamilyResult | None = None) -> tuple[FamilyResult, FamilyResult]:
    """A single run's ``families``; a family already adjusted (a sweep's or the report's) is used as it is."""
    if isinstance(family, FamilyResult):
        return family, as_counts or family
    return families(spec, {None: counts}, alpha, test, family, method, {None: samples})
