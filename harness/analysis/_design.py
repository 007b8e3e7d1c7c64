"""The design review: what a plan's comparisons can show before anything runs (X-40, X-41, X-44).

``review_design(plan)`` is a pure function of the plan. Its comparisons are the ones the plan's
findings rules make (``placement-v3`` and ``placement-rates`` alike): the position and role groups (B,
C) against the placement control (A), and the sentinel (v2) against the control (v1), in every anomaly
stage both take part in, at the planned n (the stage's repeats). For each: the smallest two-sided
Fisher p any outcome can reach, whether any outcome can be separable at the plan's α
(``analysis.alpha``), the n per group at which a complete difference becomes separable, and with an
expected effect (``analysis.effect``) the exact power at the planned n and the n reaching
``analysis.power`` (``_exact``). Design problems (``problem: true``): a compared stage in which no
outcome can be separable, an effect the plan is underpowered for, compared repeats that are one
sample (temperature 0 or unset: identical repeats, which the findings count as one), and required
checks the plan makes impossible to exercise (``_design_checks``). Repeats at temperature 0 in a stage
that is not compared are a note.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.plan import Plan

from ._design_checks import unexercisable_checks
from ._design_models import DesignFinding, DesignReview, Effect, PlannedComparison
from ._exact import MAX_N, complete_difference_p, n_for_power, n_separable, power, smallest_p
from ._spending import look_alphas
from ._stats import format_p

Pair = tuple[str, str, str]
"""(stage, group, the group it is compared with)."""


def planned_pairs(plan: Plan) -> list[Pair]:
    """The comparisons the findings rules make, per anomaly stage both groups take part in."""
    spec = plan.findings
    pairs = spec.pairs()
    stages = {s.id: s for s in plan.stages}
    out = []
    for stage_id in spec.anomalyStages:
        if stage_id not in stages:
            continue
        taking_part = {g.id for g in plan.participants(stages[stage_id])}
        out += [(stage_id, g, o) for g, o in pairs if g in taking_part and o in taking_part]
    return out


def _comparison(plan: Plan, stage: str, group: str, other: str, n_power: int | None) -> PlannedComparison:
    a = plan.analysis
    n = other_n = plan.stage(stage).repeats
    low = smallest_p(n, other_n)
    chance = None if a.effect is None else power(a.effect.control, a.effect.treatment, other_n, n, a.alpha)
    return PlannedComparison(stage=stage, group=group, other=other, n=n, otherN=other_n, smallestP=low,
                             separablePossible=low < a.alpha, nSeparable=n_separable(a.alpha), power=chance,
                             nForPower=n_power if a.effect is not None else None)


def _names(comparisons: Sequence[PlannedComparison]) -> str:
    return ", ".join(f"{c.group} vs {c.other}" for c in comparisons)


def _separability(plan: Plan, stage: str, found: list[PlannedComparison]) -> DesignFinding | None:
    blocked = [c for c in found if not c.separablePossible]
    if not blocked:
        return None
    alpha, c = plan.analysis.alpha, blocked[0]
    at = f"at n = {c.n} per group" if c.n == c.otherN else f"at n = {c.n} vs {c.otherN}"
    complete = (f"a complete difference becomes separable at n = {c.nSeparable} per group ({c.nSeparable}/"
                f"{c.nSeparable} vs 0/{c.nSeparable}: p = {format_p(complete_difference_p(c.nSeparable), alpha)})"
                if c.nSeparable is not None else f"no n up to {MAX_N} per group makes a complete difference separable")
    groups = sorted({g for x in blocked for g in (x.group, x.other)})
    return DesignFinding(
        kind="not-separable", problem=True, stage=stage, groups=groups,
        statement=f"{stage}: {at} no outcome of {_names(blocked)} can be separable at α = {alpha:g}: the "
                  f"smallest two-sided Fisher p any outcome can reach is {format_p(c.smallestP, alpha)} ({c.n}/{c.n} "
                  f"vs 0/{c.otherN}), whatever the model does; {complete}.",
        fix=(f"raise the repeats of {stage} to at least {c.nSeparable}" if c.nSeparable is not None
             else "raise analysis.alpha") + (" (or to the n the expected effect needs, below)"
                                             if plan.analysis.effect is not None else ""))


def _power_finding(plan: Plan, stage: str, found: list[PlannedComparison]) -> DesignFinding | None:
    a = plan.analysis
    if a.effect is None:
        return None
    weak = [c for c in found if c.power is not None and c.power < a.power]
    if not weak:
        return None
    c = weak[0]
    need = (f"{a.power:.0%} power needs n = {c.nForPower} per group" if c.nForPower is not None
            else f"no n up to {MAX_N} per group reaches {a.power:.0%} power")
    return DesignFinding(
        kind="underpowered", problem=True, stage=stage, groups=sorted({g for x in weak for g in (x.group, x.other)}),
        statement=f"{stage}: with the expected effect (control {a.effect.control:g}, treatment {a.effect.treatment:g}) "
                  f"the exact power of {_names(weak)} at n = {c.n} per group is {c.power:.2f} (two-sided Fisher, "
                  f"α = {a.alpha:g}); {need}.",
        fix=f"raise the repeats of {stage} to {c.nForPower}" if c.nForPower is not None
        else "expect a larger effect, or raise analysis.alpha")


def _one_sample(plan: Plan, compared: set[str]) -> list[DesignFinding]:
    temperature = plan.models.sampling.temperature
    if temperature is not None and temperature > 0:
        return []
    at = "at temperature 0" if temperature == 0 else "with no temperature set (the provider's default, read as 0)"
    out = []
    for stage in plan.stages:
        if stage.repeats < 2:
            continue
        problem = stage.id in compared
        out.append(DesignFinding(
            kind="one-sample", problem=problem, stage=stage.id,
            statement=f"{stage.id}: {at} this stage has one independent sample per group: its {stage.repeats} "
                      "repeats of an identical request are one sample repeated (a deterministic model, or most serving "
                      "stacks at temperature 0), and the findings count at most the distinct answers"
                      + (", so its comparisons rest on 1 vs 1 samples (smallest p 1.0)." if problem else "."),
            fix="set models.sampling.temperature above 0 (with a seed), so repeats are distinct draws"
            if problem else None))
    return out


def _sequential(plan: Plan) -> list[DesignFinding]:
    """For each sequential stage: the first look at which a complete difference (n/n vs 0/n) crosses its
    boundary, i.e. the earliest the stage can stop; a problem when no look can (the stage then can show no
    separable difference at all)."""
    out = []
    for stage in plan.stages:
        seq = stage.sequential
        if seq is None:
            continue
        bounds = look_alphas(seq.looks, plan.analysis.alpha, seq.spending)
        first = next(((k, n, b) for k, (n, b) in enumerate(zip(seq.looks, bounds, strict=True), 1)
                      if complete_difference_p(n) < b), None)
        head = (f"{stage.id} is sequential (looks at {', '.join(map(str, seq.looks))}, {seq.spending}, "
                f"α = {plan.analysis.alpha:g})")
        if first is None:
            out.append(DesignFinding(
                kind="sequential", problem=True, stage=stage.id,
                statement=f"{head}: not even a complete difference crosses a boundary at any look (last: n = "
                          f"{seq.looks[-1]}, p = {complete_difference_p(seq.looks[-1]):.2g} ≥ "
                          f"{bounds[-1]:.2g}), so the stage can show no separable difference.",
                fix="add repeats (a later last look), or use pocock spending, which spends more α early"))
            continue
        k, n, bound = first
        before = seq.looks[k - 2] if k > 1 else None
        earlier = (f"; at the look before (n = {before}) p = {complete_difference_p(before):.2g} does not cross "
                   f"{bounds[k - 2]:.2g}") if before is not None else ""
        out.append(DesignFinding(
            kind="sequential", problem=False, stage=stage.id,
            statement=f"{head}: the earliest it can stop is look {k} (n = {n} per group), where a complete "
                      f"difference gives p = {complete_difference_p(n):.2g} < boundary {bound:.2g}{earlier}; "
                      f"without a difference it runs to {seq.looks[-1]}."))
    return out


def review_design(plan: Plan) -> DesignReview:
    """What ``plan`` can show before it runs: its comparisons at the planned n and its design findings."""
    a = plan.analysis
    n_power = None if a.effect is None else n_for_power(a.effect.control, a.effect.treatment, a.alpha, a.power)
    comparisons = [_comparison(plan, s, g, o, n_power) for s, g, o in planned_pairs(plan)]
    findings: list[DesignFinding] = []
    stages = list(dict.fromkeys(c.stage for c in comparisons))
    for stage in stages:
        found = [c for c in comparisons if c.stage == stage]
        findings += [f for f in (_separability(plan, stage, found), _power_finding(plan, stage, found)) if f]
    findings += _one_sample(plan, set(stages))
    findings += _sequential(plan)
    findings += unexercisable_checks(plan)
    effect = None if a.effect is None else Effect(control=a.effect.control, treatment=a.effect.treatment)
    return DesignReview(alpha=a.alpha, targetPower=a.power, effect=effect, comparisons=comparisons, findings=findings)
