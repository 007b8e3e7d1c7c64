"""Comparisons with the control (X-41) and with the prefix@2 baseline (X-43)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._models import BaselineComparison, Comparison, ConversationOutcome
from ._stats import ALPHA, fisher_p, p_text, separable, verdict_text, wilson_interval

Counts = tuple[int, int]
"""(passes, n): trials with a verdict only; error and skipped trials are not in n."""


def _rate(group: str, counts: Counts, interval: tuple[float, float]) -> str:
    return f"{group} {counts[0]}/{counts[1]} (Wilson 95% {interval[0]:.2f}–{interval[1]:.2f})"


def compare(stage: str, group: str, group_counts: Counts, control: str, control_counts: Counts,
            alpha: float = ALPHA) -> Comparison:
    """One group against the control in one stage: n, Wilson intervals, two-sided Fisher p (X-41), separable
    when p < ``alpha`` (the plan's ``analysis.alpha``)."""
    (gp, gn), (cp, cn) = group_counts, control_counts
    if gn == 0 or cn == 0:
        missing = group if gn == 0 else control
        return Comparison(
            stage=stage, group=group, control=control, groupPasses=gp, groupN=gn, controlPasses=cp, controlN=cn,
            groupWilson95=wilson_interval(gp, gn) if gn else None,
            controlWilson95=wilson_interval(cp, cn) if cn else None,
            fisherP=None, separable=None,
            statement=f"{stage}: not compared: {missing} has no trial with a verdict in this stage.",
        )
    gw, cw = wilson_interval(gp, gn), wilson_interval(cp, cn)
    p = fisher_p(gp, gn, cp, cn)
    apart = separable(p, alpha)
    verdict = verdict_text(apart, alpha)
    return Comparison(
        stage=stage, group=group, control=control, groupPasses=gp, groupN=gn, controlPasses=cp, controlN=cn,
        groupWilson95=gw, controlWilson95=cw, fisherP=p, separable=apart,
        statement=f"{stage}: {_rate(group, (gp, gn), gw)} vs {_rate(control, (cp, cn), cw)}, "
        f"Fisher {p_text(p, alpha)}: {verdict}.",
    )


def compare_with_control(
    counts: Mapping[str, Mapping[str, Counts]], control: str, stages: Sequence[str], groups: Sequence[str],
    alpha: float = ALPHA,
) -> list[Comparison]:
    """Every group (other than the control) against the control, per stage both took part in."""
    out = []
    for stage in stages:
        if stage not in counts.get(control, {}):
            continue
        for group in groups:
            if group == control or stage not in counts.get(group, {}):
                continue
            out.append(compare(stage, group, counts[group][stage], control, counts[control][stage], alpha))
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
