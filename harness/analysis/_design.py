"""The design review: what a plan's comparisons can show before anything runs (X-40, X-41, X-44).

``review_design(plan)`` is a pure function of the plan. Its comparisons are the plan's family
(``analysis.family``, ``_family``): every comparison its findings rules can claim, in every anomaly stage,
at the planned n (the stage's repeats), held at α together. For each, with the plan's test
(``analysis.test``): the smallest two-sided p any outcome can reach, whether any outcome can cross the
family's first-step cut-off, the n per group at which a complete difference does, and with an expected
effect (``analysis.effect``) the exact power at the planned n and the n reaching ``analysis.power``, with the
same at α on its own beside them (``_design_family``). Design problems (``problem: true``): a compared
stage in which no outcome can cross the family's cut-off, an effect the plan is underpowered for, compared
repeats that are one sample (temperature 0 or unset: identical repeats, which the comparisons and findings
count as one; the finding says what the stage could separate once they are sampled draws), and required checks the plan
makes impossible to exercise (``_design_checks``). Repeats at temperature 0 in a stage that is not
compared are a note. A sequential stage is reviewed with its design calibrated exactly for its listed
comparisons together: thresholds, the type I error by each look, exact size, the earliest look it can stop
at and, with an effect, its exact power (every comparison crossing at one look) and expected repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.plan import Plan, StageSpec, sequential_pairs
from harness.stats import (
    MAX_N,
    TITLES,
    both_roles,
    calibrated,
    complete_difference_p,
    effect_rates,
    format_p,
    p_grid,
    power,
    smallest_p,
    stop_chances,
    structure,
)

from ._design_checks import unexercisable_checks
from ._design_family import family_design
from ._design_models import DesignFinding, DesignReview, Effect, PlannedComparison, SequentialReview
from ._sequential import boundary_text, size_text


def _names(comparisons: Sequence[PlannedComparison]) -> str:
    return ", ".join(f"{c.group} vs {c.other}" for c in comparisons)


def _separability(plan: Plan, stage: str, found: list[PlannedComparison]) -> DesignFinding | None:
    blocked = [c for c in found if not c.separablePossible]
    if not blocked:
        return None
    alpha, test, c = plan.analysis.alpha, plan.analysis.test, blocked[0]
    at = f"at n = {c.n} per group" if c.n == c.otherN else f"at n = {c.n} vs {c.otherN}"
    adjusted = plan.analysis.family != "none" and c.cutoff is not None
    complete = (f"a complete difference crosses it at n = {c.nSeparable} per group ({c.nSeparable}/{c.nSeparable} "
                f"vs 0/{c.nSeparable}: p = {format_p(complete_difference_p(c.nSeparable, test=test), alpha)})"
                if c.nSeparable is not None else f"no n up to {MAX_N} per group makes a complete difference cross it")
    groups = sorted({g for x in blocked for g in (x.group, x.other)})
    where = (f"the family's first-step cut-off {c.cutoff:.3g} (α = {alpha:g} held for the family: "
             f"{plan.analysis.family})" if adjusted else f"α = {alpha:g}")
    return DesignFinding(
        kind="not-separable", problem=True, stage=stage, groups=groups,
        statement=f"{stage}: {at} {_names(blocked)} cannot cross {where}, whatever the model does: the smallest "
                  f"two-sided {TITLES[test]} p any outcome can reach is {format_p(c.smallestP, alpha)} ({c.n}/{c.n} "
                  f"vs 0/{c.otherN}), even with sampled repeats; {complete}"
                  + (" (once another comparison of the family is separable, the closed test can still call it "
                     "separable at a p up to α)." if adjusted and c.smallestP < alpha else "."),
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
    adjusted = a.family != "none" and c.cutoff is not None
    alone = "" if c.powerAlone is None or not adjusted else (
        f"; tested at α on its own it would be {c.powerAlone:.2f}, and n = {c.nForPowerAlone} per group would reach "
        f"{a.power:.0%}" if c.nForPowerAlone is not None else f"; at α on its own {c.powerAlone:.2f}")
    at = f", crossing the family's cut-off {c.cutoff:.3g}" if adjusted else ""
    return DesignFinding(
        kind="underpowered", problem=True, stage=stage, groups=sorted({g for x in weak for g in (x.group, x.other)}),
        statement=f"{stage}: with the expected effect (control {a.effect.control:g}, treatment {a.effect.treatment:g}) "
                  f"the exact power of {_names(weak)} at n = {c.n} per group is {c.power:.2f} (two-sided "
                  f"{TITLES[a.test]}, α = {a.alpha:g}{at}); {need}{alone}.",
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
                      "stacks at temperature 0), and the comparisons and findings count at most the distinct answers"
                      + (f", so its comparisons rest on 1 vs 1 samples (smallest p "
                         f"{format_p(smallest_p(1, 1, plan.analysis.test))}); {_as_draws(plan, stage)}."
                         if problem else "."),
            fix="set models.sampling.temperature above 0 (with a seed), so repeats are distinct draws"
            if problem else None))
    return out


def _as_draws(plan: Plan, stage: StageSpec) -> str:
    """What the stage could separate once its repeats are sampled draws."""
    n, a = stage.repeats, plan.analysis
    p = format_p(complete_difference_p(n, test=a.test), a.alpha)
    if complete_difference_p(n, test=a.test) < a.alpha:
        return (f"once its repeats are sampled draws (temperature above 0), a complete difference ({n}/{n} vs 0/{n}) "
                f"is separable: {TITLES[a.test]} p = {p}")
    return (f"even as sampled draws, a complete difference ({n}/{n} vs 0/{n}, {TITLES[a.test]} p = {p}) cannot be "
            f"separable at n = {n}")


def sequential_review(plan: Plan, stage: StageSpec) -> SequentialReview:
    """A sequential stage's design, calibrated for its listed comparisons together, with the plan's effect when it
    has one: its exact power is the chance that every listed comparison crosses at one look, the first group of
    each passing at the treatment rate and the second at the control rate (none when a group is both)."""
    seq, a = stage.sequential, plan.analysis
    assert seq is not None, f"stage {stage.id} is not sequential"
    pairs = sequential_pairs(plan, stage)
    shape = structure(pairs)
    figures = calibrated(tuple(seq.looks), a.alpha, seq.spending, a.test, shape)
    first = next((k for k, (n, b) in enumerate(zip(seq.looks, figures.thresholds, strict=True), 1)
                  if p_grid(n, n, a.test)[n, 0] < b), None)
    chance = expected = fixed = note = None
    if a.effect is not None:
        names = list(dict.fromkeys(g for pair in pairs for g in pair))
        found = None if both_roles(shape) else stop_chances(figures, effect_rates(shape, a.effect.control,
                                                                                 a.effect.treatment))
        if found is not None:
            chance, expected = found.power, found.expected
        elif both_roles(shape):
            both = ", ".join(names[g] for g in both_roles(shape))
            note = (f"{both} is compared both as the first group (at the treatment rate) and as the second (at the "
                    "control rate), so the expected effect gives no single power")
        else:
            note = "too many outcomes to enumerate the comparisons' power together"
        fixed = power(a.effect.control, a.effect.treatment, seq.looks[-1], alpha=a.alpha, test=a.test)
    return SequentialReview(stage=stage.id, looks=list(seq.looks), spending=seq.spending,
                            thresholds=figures.thresholds, typeOneError=figures.cumulative, size=figures.size,
                            comparisons=list(pairs), calibration="exact" if figures.exact else "bonferroni",
                            earliestStop=first, power=chance, expectedRepeats=expected, powerNote=note,
                            fixedPower=fixed)


def _sequential(plan: Plan, reviews: list[SequentialReview]) -> list[DesignFinding]:
    """For each sequential stage: its calibrated thresholds and exact size, the earliest look at which a complete
    difference crosses (a problem when none can: the stage can then show no separable difference) and, with an
    effect, its exact power and expected repeats."""
    out = []
    a = plan.analysis
    for r in reviews:
        k = max(1, len(r.comparisons))
        calibrated_for = ("calibrated exactly" if k == 1 else f"calibrated for its {k} comparisons together"
                          + (" (Bonferroni: too many outcomes to enumerate them jointly)"
                             if r.calibration == "bonferroni" else ""))
        head = (f"{r.stage} is sequential (looks at {', '.join(map(str, r.looks))}, {r.spending}, α = {a.alpha:g}, "
                f"{TITLES[a.test]}): thresholds {calibrated_for}, {', '.join(boundary_text(b) for b in r.thresholds)}"
                f" (crossing when p is below), {size_text(r.size, k, r.calibration)}")
        if r.earliestStop is None:
            last = r.looks[-1]
            out.append(DesignFinding(
                kind="sequential", problem=True, stage=r.stage,
                statement=f"{head}; not even a complete difference crosses at any look (last: n = {last}, p = "
                          f"{boundary_text(complete_difference_p(last, test=a.test))} ≥ "
                          f"{boundary_text(r.thresholds[-1])}), so the stage can show no separable difference.",
                fix="add repeats (a later last look), or use pocock spending, which spends more α early"))
            continue
        k = r.earliestStop
        n = r.looks[k - 1]
        text = (f"{head}; the earliest it can stop is look {k} (n = {n} per group), where a complete difference gives "
                f"p = {boundary_text(complete_difference_p(n, test=a.test))} < {boundary_text(r.thresholds[k - 1])}")
        if a.effect is not None and r.power is not None and r.expectedRepeats is not None:
            stop = "its exact power" if k == 1 else f"the exact chance that all {k} cross at one look (a stop)"
            text += (f"; with the expected effect ({a.effect.control:g} vs {a.effect.treatment:g}) {stop} is "
                     f"{r.power:.2f} with {r.expectedRepeats:.1f} repeats per group on average (a fixed design of "
                     f"{r.looks[-1]}: power {r.fixedPower:.2f}" + (" per comparison)" if k > 1 else ")"))
        elif r.powerNote is not None:
            text += f"; no power for the expected effect: {r.powerNote}"
        out.append(DesignFinding(kind="sequential", problem=False, stage=r.stage,
                                 statement=f"{text}; without a difference it runs to {r.looks[-1]}."))
    return out


def review_design(plan: Plan) -> DesignReview:
    """What ``plan`` can show before it runs: its family's comparisons at the planned n and its design findings."""
    a = plan.analysis
    family, comparisons = family_design(plan)
    findings: list[DesignFinding] = []
    stages = list(dict.fromkeys(c.stage for c in comparisons))
    for stage in stages:
        found = [c for c in comparisons if c.stage == stage and not c.gated]
        findings += [f for f in (_separability(plan, stage, found), _power_finding(plan, stage, found)) if f]
    findings += _one_sample(plan, set(stages))
    sequential = [sequential_review(plan, st) for st in plan.stages if st.sequential is not None]
    findings += _sequential(plan, sequential)
    findings += unexercisable_checks(plan)
    effect = None if a.effect is None else Effect(control=a.effect.control, treatment=a.effect.treatment)
    return DesignReview(alpha=a.alpha, test=a.test, targetPower=a.power, effect=effect, family=family,
                        comparisons=comparisons, sequential=sequential, findings=findings)
