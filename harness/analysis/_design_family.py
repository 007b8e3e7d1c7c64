"""What a plan's family of comparisons can show before it runs (X-41): the design review's figures for the
adjusted test (``_family``: the comparisons held at α together; ``harness.stats``: the closed test).

At the planned n per group (each anomaly stage's repeats) the family's blocks give its **first step**: the
cut-off below which a comparison's p makes it separable whatever the others show, and the family-wise size
there (the largest chance, over the common pass rates, that any comparison crosses when no group differs).
Each comparison of the family is sized for that cut-off: whether any outcome can cross it (its smallest p
below the cut-off), the n per group at which a complete difference does, and with an expected effect its
power (the chance its p crosses the cut-off: a lower bound of the closed test's, which may also call it
separable after another comparison is) and the n reaching the target power; beside them the same figures for
the comparison tested at α on its own. A comparison tested only after others (B vs C, after A = B = C is
rejected) has no first step of its own: it is listed with its figures at α. Under ``analysis.family: none``
the cut-off is α itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.plan import Plan
from harness.stats import (
    MAX_N,
    Block,
    FirstStep,
    first_step,
    n_for_power,
    n_separable,
    power,
    smallest_p,
    walk_to_target,
)

from ._design_models import FamilyDesign, PlannedComparison
from ._family import block_of, method_text, stage_blocks, within_text

Pair = tuple[str, str, str]
"""(stage, group, the group it is compared with)."""


@dataclass(frozen=True)
class Planned:
    """The family of a plan at given n per stage: its blocks and, per block, its comparisons as pairs."""

    blocks: list[Block]
    pairs: list[list[Pair]]

    def gated(self, pair: Pair) -> bool:
        """Is the comparison tested only after its block's global null is rejected (a triangle's third)?"""
        return any(b.kind == "triangle" and pairs.index(pair) == 2 for b, pairs in zip(self.blocks, self.pairs,
                                                                                    strict=True) if pair in pairs)


def planned_family(plan: Plan, repeats: Mapping[str, int] | None = None) -> Planned:
    """The family's blocks at the planned n (``repeats``: stage → n per group instead, for a search)."""
    spec, a = plan.findings, plan.analysis
    stages = {s.id: s for s in plan.stages}
    blocks: list[Block] = []
    pairs: list[list[Pair]] = []
    for stage_id in spec.anomalyStages:
        if stage_id not in stages:
            continue
        n = (repeats or {}).get(stage_id, stages[stage_id].repeats)
        taking_part = [g.id for g in plan.participants(stages[stage_id])]
        for kind, found in stage_blocks(spec, taking_part):
            blocks.append(block_of(kind, found, dict.fromkeys(taking_part, n), a.test))
            pairs.append([(stage_id, g, o) for g, o in found])
    return Planned(blocks, pairs)


def planned_pairs(plan: Plan) -> list[Pair]:
    """The comparisons of the plan's family (what its findings rules can claim), per anomaly stage."""
    return [p for pairs in planned_family(plan).pairs for p in pairs]


def _step(plan: Plan, planned: Planned) -> FirstStep:
    a = plan.analysis
    if a.family == "none" or not planned.blocks:
        return FirstStep(a.alpha, a.alpha, True, sum(len(p) for p in planned.pairs))
    return first_step(planned.blocks, a.alpha, a.familyMethod)


def family_design(plan: Plan) -> tuple[FamilyDesign, list[PlannedComparison]]:
    """The family's first step at the planned n, and each of its comparisons sized for it."""
    a = plan.analysis
    planned = planned_family(plan)
    step = _step(plan, planned)
    count = step.comparisons
    statement = method_text(a.family, None if a.family == "none" else a.familyMethod, count,
                            within_text(planned.blocks))
    if a.family != "none" and step.size == 0:
        statement += (f": a comparison is separable whatever the others show when its p < {step.cutoff:.3g} (the "
                      "first-step cut-off at the planned n), which no outcome at these n can reach")
    elif a.family != "none":
        statement += (f": a comparison is separable whatever the others show when its p < {step.cutoff:.3g} (the "
                      f"first-step cut-off at the planned n), and the chance that any of them crosses it when no "
                      f"group differs is {'at most ' if not step.exact else ''}{step.size:.3g}, maximised over the "
                      f"common pass rates (≤ α = {a.alpha:g})")
    design = FamilyDesign(name=a.family, method=None if a.family == "none" else a.familyMethod, comparisons=count,
                          cutoff=step.cutoff, size=step.size, exact=step.exact, statement=statement)
    out = []
    held: dict[str, tuple[_Alone, float | None, int | None, int | None]] = {}  # per stage: its pairs share its n
    for pair in (p for pairs in planned.pairs for p in pairs):
        stage, group, other = pair
        n = plan.stage(stage).repeats
        gated = planned.gated(pair)
        if stage not in held:
            held[stage] = _stage_figures(plan, stage, n, step.cutoff)
        alone, chance, crossing, n_power = held[stage]
        if gated or a.family == "none":
            out.append(PlannedComparison(
                stage=stage, group=group, other=other, n=n, otherN=n, gated=gated, cutoff=None if gated else a.alpha,
                smallestP=alone.smallest, separablePossible=alone.smallest < a.alpha, nSeparable=alone.n_separable,
                power=alone.power, nForPower=alone.n_for_power, powerAlone=alone.power,
                nForPowerAlone=alone.n_for_power, nSeparableAlone=alone.n_separable))
            continue
        out.append(PlannedComparison(
            stage=stage, group=group, other=other, n=n, otherN=n, cutoff=step.cutoff, smallestP=alone.smallest,
            separablePossible=alone.smallest < step.cutoff, nSeparable=crossing, power=chance, nForPower=n_power,
            powerAlone=alone.power, nForPowerAlone=alone.n_for_power, nSeparableAlone=alone.n_separable))
    return design, out


def _stage_figures(plan: Plan, stage: str, n: int, cutoff: float
                   ) -> tuple[_Alone, float | None, int | None, int | None]:
    """A stage's figures, shared by its comparisons (equal n per group): at α alone, and for the family's
    cut-off its power, the n a complete difference crosses at and the n for the target power (none under family
    none, where the cut-off is α)."""
    a = plan.analysis
    alone = _alone(plan, n)
    if a.family == "none":
        return alone, None, None, None
    chance = None if a.effect is None else power(a.effect.control, a.effect.treatment, n, n, cutoff, a.test)
    n_power = None if a.effect is None else _n_for_power(plan, stage, n, cutoff)
    return alone, chance, _n_crossing(plan, stage), n_power


@dataclass(frozen=True)
class _Alone:
    """A comparison's figures at α on its own."""

    smallest: float
    n_separable: int | None
    power: float | None
    n_for_power: int | None


def _alone(plan: Plan, n: int) -> _Alone:
    a = plan.analysis
    if a.effect is None:
        return _Alone(smallest_p(n, n, a.test), n_separable(a.alpha, test=a.test), None, None)
    return _Alone(smallest_p(n, n, a.test), n_separable(a.alpha, test=a.test),
                  power(a.effect.control, a.effect.treatment, n, n, a.alpha, a.test),
                  n_for_power(a.effect.control, a.effect.treatment, a.alpha, a.power, test=a.test))


def _cutoff_at(plan: Plan, stage: str, n: int) -> float:
    """The family's first-step cut-off with ``stage`` run at n per group (the other stages as planned)."""
    return _step(plan, planned_family(plan, {stage: n})).cutoff


def _n_crossing(plan: Plan, stage: str) -> int | None:
    """The smallest n per group at which a complete difference (n/n vs 0/n) in ``stage`` crosses the first step."""
    start = n_separable(plan.analysis.alpha, test=plan.analysis.test) or MAX_N
    return next((n for n in range(start, MAX_N + 1) if smallest_p(n, n, plan.analysis.test) < _cutoff_at(plan, stage,
                                                                                                         n)), None)


def _n_for_power(plan: Plan, stage: str, n: int, cutoff: float) -> int | None:
    """The smallest n per group around which the comparison's first-step power reaches the target: from the n the
    planned cut-off needs, down while the power holds and up until it does (the cut-off moves little with n)."""
    a, effect = plan.analysis, plan.analysis.effect
    assert effect is not None
    guess = n_for_power(effect.control, effect.treatment, cutoff, a.power, test=a.test)
    if guess is None:
        return None

    return walk_to_target(guess, lambda m: power(effect.control, effect.treatment, m, m, _cutoff_at(plan, stage, m),
                                                  a.test) >= a.power, 1, MAX_N)
