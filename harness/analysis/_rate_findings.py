"""Findings rules for sampled repeats without gating (``placement-rates``).

``placement-v3`` (X-40) reads a stage as failed when *any* trial failed (pass^k): right for a
deterministic model and a few repeats, meaningless for 20 repeats at temperature 0.7, where every
group of a small model fails now and then. This rule set compares pass *rates* instead, one finding
per anomaly stage, each sentence with its counts, Wilson intervals and two-sided p (the plan's test):

- the control (v1, no state message) first: without a verdict (``control-no-verdict``), or passing
  so rarely that its Wilson upper bound is below one half (``control-weak``), the model cannot do
  the task reliably and no placement conclusion is drawn;
- otherwise B (state before the history) and C (state as a user message) are each compared with A
  (the trailing assistant state): separable only at p < α (``analysis.alpha``, 0.05 by default), in
  either direction. Both better than A: ``trailing-assistant-worse``; only B: ``position-helps``; only
  C: ``role-helps``; either worse than A: ``placement-worse-than-control``; neither separable:
  ``no-separable-difference``.
- the sentinel (v2, the original mapping) is compared with the control v1: below it at p < α is
  the anomaly reproduced (``sentinelReproduced``), otherwise not shown at this n.

Every claimed difference is separable, so a rule that claims one is ``shown``; every comparison
names both counts and its p. A pure function of (passes, n) per group and stage (errors and skips
are not in n) and, for repeats that are not sampled draws, of the distinct answers behind them: identical
repeats are one sample repeated, so a difference is separable only on those.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.plan import FindingsSpec
from harness.stats import (
    ALPHA,
    DEFAULT_TEST,
    TITLES,
    TestName,
    p_text,
    p_value,
    separable,
    verdict_text,
    wilson_interval,
)

from ._evidence import CountsByGroup, comparison
from ._models import Finding, FindingsResult, ModelKind, StageStatus

RATE_RULES = "placement-rates"
Counts = tuple[int, int]


def _rate(group: str, counts: Counts | None) -> str:
    if counts is None or counts[1] == 0:
        return f"{group} no trial with a verdict"
    low, high = wilson_interval(*counts)
    return f"{group} {counts[0]}/{counts[1]} (Wilson {low:.2f}–{high:.2f})"


def _versus(group: str, mine: Counts | None, control: str, theirs: Counts | None, alpha: float = ALPHA,
            test: TestName = DEFAULT_TEST, samples: CountsByGroup | None = None, stage: str = "") -> tuple[str, str]:
    """(``better`` / ``worse`` / ``same`` / ``unknown``, the sentence part with p); with ``samples`` (repeats
    that are not sampled draws) the verdict is the distinct answers'."""
    if not mine or not theirs or mine[1] == 0 or theirs[1] == 0:
        return "unknown", f"{group} vs {control}: not compared (a side has no trial with a verdict)"
    p = p_value(mine[0], mine[1], theirs[0], theirs[1], test)
    text = f"{group} {mine[0]}/{mine[1]} vs {control} {theirs[0]}/{theirs[1]}: {TITLES[test]} {p_text(p, alpha)}"
    distinct = samples or {}
    (a, n), (b, m) = distinct.get(group, {}).get(stage, mine), distinct.get(control, {}).get(stage, theirs)
    if ((a, n), (b, m)) != (mine, theirs) and n and m:
        p = p_value(a, n, b, m, test)
        text += (f", but identical repeats are one sample repeated: on the distinct answers {group} {a}/{n} vs "
                 f"{control} {b}/{m}, {p_text(p, alpha)}")
    if not separable(p, alpha):
        return "same", f"{text}, {verdict_text(False)}"
    better = mine[0] / mine[1] > theirs[0] / theirs[1]
    return ("better" if better else "worse"), (f"{text}, {verdict_text(True, alpha)}, "
                                               f"{group} {'above' if better else 'below'} {control}")


_RULES: dict[tuple[str, str], str] = {
    ("better", "better"): "trailing-assistant-worse",
    ("better", "same"): "position-helps",
    ("same", "better"): "role-helps",
    ("same", "same"): "no-separable-difference",
}


def _stage_finding(spec: FindingsSpec, stage: str, counts: Mapping[str, Mapping[str, Counts]],
                   outcomes: Mapping[str, Mapping[str, StageStatus]], alpha: float = ALPHA,
                   test: TestName = DEFAULT_TEST, samples: CountsByGroup | None = None) -> Finding:
    a, b, c, v1, v2 = spec.placementControl, spec.positionGroup, spec.roleGroup, spec.controlGroup, spec.sentinelGroup
    got = {g: counts.get(g, {}).get(stage) for g in (a, b, c, v2, v1)}
    rates = ", ".join(_rate(g, got[g]) for g in (a, b, c, v2, v1))
    basis = {g: {stage: outcomes[g][stage]} for g in (a, b, c, v2, v1) if stage in outcomes.get(g, {})}
    sentinel, sentinel_text = _versus(v2, got[v2], v1, got[v1], alpha, test, samples, stage)
    reproduced = {"worse": True, "better": False, "same": False}.get(sentinel)
    sentinel_statement = (f"Sentinel: {sentinel_text}; " + (
        "the original unified@2 mapping fails more often than the sentinel control: the anomaly "
        "reproduced." if reproduced
        else "no anomaly of unified@2 shown at this n." if sentinel in ("same", "better")
        else "whether the anomaly reproduced is unknown."))
    limited = [f"{g}: no trial with a verdict in {stage}" for g, n in got.items() if not n or n[1] == 0]
    beyond = "that the difference holds for other models, questions, temperatures or a larger n"
    control = got[v1]
    if not control or control[1] == 0:
        rule = "control-no-verdict"
        statement = (f"{stage}: the sentinel control {v1} has no trial with a verdict, so no placement "
                     "conclusion is drawn.")
        not_shown = "Anything about placement; rerun once the sentinel control has trials with a verdict."
    elif wilson_interval(*control)[1] < 0.5:
        rule = "control-weak"
        statement = (f"{stage}: the sentinel control {_rate(v1, control)} passes less than half the time "
                     "even at the upper end of its 95% interval: read as the model not doing this task reliably, so "
                     "differences between placements are not attributed to placement.")
        not_shown = "That placement matters or does not matter for this model; try a stronger model or an easier task."
    else:
        vb, tb = _versus(b, got[b], a, got[a], alpha, test, samples, stage)
        vc, tc = _versus(c, got[c], a, got[a], alpha, test, samples, stage)
        worse = [g for g, v in ((b, vb), (c, vc)) if v == "worse"]
        if "unknown" in (vb, vc):
            rule = "inconclusive"
            why = "a placement group has no trial with a verdict"
        elif worse:
            rule = "placement-worse-than-control"
            why = f"{' and '.join(worse)} pass{'es' if len(worse) == 1 else ''} less often than {a}"
        else:
            rule = _RULES[(vb, vc)]
            why = {"trailing-assistant-worse": f"both alternatives pass more often than the trailing assistant "
                                               f"state {a}: that placement is implicated",
                   "position-helps": f"moving the state before the history ({b}) helps, making it a user message "
                                     f"({c}) is not shown to",
                   "role-helps": f"making the state a user message ({c}) helps, moving it before the history ({b}) "
                                 "is not shown to",
                   "no-separable-difference": "no placement is separable from the trailing assistant state at "
                                              "this n"}[rule]
        statement = f"{stage}: {why} ({tb}; {tc})."
        not_shown = (f"Why the placements differ (read the failure modes and transcripts), or {beyond}; a "
                     "difference that is not separable is not shown to be absent.")
    rests = [e for g in (b, c) if (e := comparison(stage, g, a, samples or counts, alpha, test)) is not None]
    claims = rule in ("trailing-assistant-worse", "position-helps", "role-helps", "placement-worse-than-control")
    return Finding(rule=f"{RATE_RULES}/{rule}", statement=f"{statement} Pass rates: {rates}.", doesNotShow=not_shown,
                   basis=basis, sentinelReproduced=reproduced, sentinelStatement=sentinel_statement,
                   limitedBy=limited, restsOn=rests, shown=True if claims else None)


def derive_rate_findings(spec: FindingsSpec, counts: Mapping[str, Mapping[str, Counts]],
                         outcomes: Mapping[str, Mapping[str, StageStatus]], *, model_kind: ModelKind,
                         maintenance_ran: bool, alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
                         samples: CountsByGroup | None = None) -> FindingsResult:
    """One finding per anomaly stage that any group ran, plus the X-42 / X-44 caveats; ``alpha``, ``test``: the
    plan's ``analysis`` (separable when the test's p < alpha); ``samples``: the distinct answers behind the
    counts when the repeats are not sampled draws."""
    stages = [s for s in spec.anomalyStages if any(s in per for per in outcomes.values())]
    findings = [_stage_finding(spec, s, counts, outcomes, alpha, test, samples) for s in stages]
    caveats = [f"placement-rates: stages are compared by pass rate ({TITLES[test]}'s exact test on passes / n), not "
               "by pass^k; a stage's 'failed' status only means at least one of its trials failed."]
    if model_kind == "scripted":
        caveats.append("Scripted models: this run checks the harness mechanisms, not LLM behaviour; nothing here is "
                       "evidence about any real model (X-42).")
    else:
        caveats.append("Real-model run: one model, one task, one temperature; a rate measured here is no "
                       "guarantee for other models, tasks or settings (X-42).")
    if not maintenance_ran:
        caveats.append("No maintenance ran in any trial: automatic compression was not exercised, and this report "
                       "makes no claim about it (X-44).")
    return FindingsResult(findings=findings, caveats=caveats)
