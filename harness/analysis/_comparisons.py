"""Comparisons with the control (X-41) and with the prefix@2 baseline (X-43).

A comparison's p comes from the plan's test (``analysis.test``). Where a group's repeats are not sampled
draws (temperature 0 or unset) and gave fewer distinct answers than trials, identical repeats are one
sample repeated: the comparison's effective n is the distinct answers, and it is separable only if it is
on those (the design review reasons the same way before the run). A comparison in the report's family
(``_family``) is separable when its family-adjusted p < α; one outside it (v1 or v2 against the placement
control under ``placement-rates``, a stage outside the anomaly stages) is a description: its p is given,
no separability is claimed (``separable`` null). Under ``analysis.family: none`` every comparison is judged
at α on its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.stats import (
    ALPHA,
    DEFAULT_TEST,
    TITLES,
    TestName,
    adjusted_text,
    p_text,
    p_value,
    separable,
    verdict_text,
    wilson_interval,
)

from ._family import FamilyResult
from ._models import BaselineComparison, Comparison, ConversationOutcome

Counts = tuple[int, int]
"""(passes, n): trials with a verdict only; error and skipped trials are not in n."""


def _rate(group: str, counts: Counts, interval: tuple[float, float]) -> str:
    return f"{group} {counts[0]}/{counts[1]} (Wilson 95% {interval[0]:.2f}–{interval[1]:.2f})"


def _judged(p: float, stage: str, group: str, control: str, alpha: float,
            family: FamilyResult | None) -> tuple[float | None, str | None, bool | None, str]:
    """(adjusted p, family name, separable, the verdict's words) of a comparison whose deciding p is ``p``."""
    if family is None or family.name == "none":
        apart = separable(p, alpha)
        return None, None if family is None else "none", apart, verdict_text(apart, alpha)
    held = family.get(stage, group, control)
    if held is None:
        return None, None, None, ("outside the family of claims (analysis.family): a description, no separability "
                                  "claimed")
    apart = separable(held, alpha)
    return held, family.name, apart, verdict_text(apart, alpha, adjusted=True)


def compare(stage: str, group: str, group_counts: Counts, control: str, control_counts: Counts,
            alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
            samples: tuple[Counts, Counts] | None = None, family: FamilyResult | None = None) -> Comparison:
    """One group against the control in one stage: n, Wilson intervals, the test's two-sided p (X-41), its
    family-adjusted p and separable when that is < ``alpha`` (the plan's ``analysis.alpha``; without a family, p <
    alpha). ``samples``: (group, control) counts over their distinct answers when the repeats are not sampled
    draws; decided then on those."""
    (gp, gn), (cp, cn) = group_counts, control_counts
    if gn == 0 or cn == 0:
        missing = group if gn == 0 else control
        return Comparison(
            stage=stage, group=group, control=control, groupPasses=gp, groupN=gn, controlPasses=cp, controlN=cn,
            groupWilson95=wilson_interval(gp, gn) if gn else None,
            controlWilson95=wilson_interval(cp, cn) if cn else None, pValue=None, test=test, separable=None,
            statement=f"{stage}: not compared: {missing} has no trial with a verdict in this stage.",
        )
    gw, cw = wilson_interval(gp, gn), wilson_interval(cp, cn)
    p = p_value(gp, gn, cp, cn, test)
    head = f"{stage}: {_rate(group, (gp, gn), gw)} vs {_rate(control, (cp, cn), cw)}, {TITLES[test]} "
    if samples is None or samples == (group_counts, control_counts) or 0 in (samples[0][1], samples[1][1]):
        held, name, apart, verdict = _judged(p, stage, group, control, alpha, family)
        return Comparison(
            stage=stage, group=group, control=control, groupPasses=gp, groupN=gn, controlPasses=cp, controlN=cn,
            groupWilson95=gw, controlWilson95=cw, pValue=p, test=test, adjustedP=held, family=name, separable=apart,
            statement=f"{head}{adjusted_text(p, held, alpha)}: {verdict}.")
    (gs, gd), (cs, cd) = samples
    q = p_value(gs, gd, cs, cd, test)
    held, name, apart, verdict = _judged(q, stage, group, control, alpha, family)
    why = (f"; but identical repeats are one sample repeated (not sampled above temperature 0): {group}'s {gn} and "
           f"{control}'s {cn} trials gave {gd} and {cd} distinct answer(s), and on those, {group} {gs}/{gd} vs "
           f"{control} {cs}/{cd}, {TITLES[test]} {adjusted_text(q, held, alpha)}")
    return Comparison(
        stage=stage, group=group, control=control, groupPasses=gp, groupN=gn, controlPasses=cp, controlN=cn,
        groupWilson95=gw, controlWilson95=cw, pValue=p, test=test, groupSamples=(gs, gd), controlSamples=(cs, cd),
        samplesP=q, adjustedP=held, family=name, separable=apart,
        statement=f"{head}{p_text(p, alpha)}{why}: {verdict}.")


def compare_with_control(
    counts: Mapping[str, Mapping[str, Counts]], control: str, stages: Sequence[str], groups: Sequence[str],
    alpha: float = ALPHA, test: TestName = DEFAULT_TEST, samples: Mapping[str, Mapping[str, Counts]] | None = None,
    family: FamilyResult | None = None,
) -> list[Comparison]:
    """Every group (other than the control) against the control, per stage both took part in; ``samples``:
    group → stage → counts over the distinct answers, when repeats are not sampled draws; ``family``: the
    report's (adjusted p and separable for the comparisons it holds)."""
    out = []
    for stage in stages:
        if stage not in counts.get(control, {}):
            continue
        for group in groups:
            if group == control or stage not in counts.get(group, {}):
                continue
            both = None if samples is None else (samples[group][stage], samples[control][stage])
            out.append(compare(stage, group, counts[group][stage], control, counts[control][stage], alpha, test,
                               both, family))
    return out


def compare_with_baseline(
    stage: str, outcomes: Mapping[str, ConversationOutcome], baseline: str, groups: Sequence[str]
) -> list[BaselineComparison]:
    """Each unified group against the baseline on outcome, repeated tool calls, tokens and cost (X-43).

    Data, not a verdict: whether autonomous context control pays for itself is read from these rows
    together with the outcomes; with n = 2 per group no difference is separable.
    """
    base = outcomes.get(baseline)
    if base is None:
        return []
    out = []
    for group in groups:
        mine = outcomes.get(group)
        if group == baseline or mine is None:
            continue
        tokens_delta = _tokens(mine) - _tokens(base)
        usd_delta = None if mine.usd is None or base.usd is None else mine.usd - base.usd
        ratio = None if mine.usd is None or not base.usd else mine.usd / base.usd
        cost = "cost unknown" if usd_delta is None else f"{usd_delta:+.4f} USD"
        out.append(BaselineComparison(
            stage=stage, group=group, baseline=baseline, groupOutcome=mine, baselineOutcome=base,
            repeatedToolCallsDelta=mine.repeatedToolCalls - base.repeatedToolCalls,
            totalTokensDelta=tokens_delta, usdDelta=usd_delta, usdRatio=ratio,
            statement=(
                f"{stage}: {group} {mine.status} ({mine.passes}/{mine.n}) vs {baseline} {base.status} "
                f"({base.passes}/{base.n}); repeated tool calls {mine.repeatedToolCalls} vs "
                f"{base.repeatedToolCalls}; tokens {tokens_delta:+d}; {cost}."
            ),
        ))
    return out


def _tokens(o: ConversationOutcome) -> int:
    return o.inputTokens + o.outputTokens
