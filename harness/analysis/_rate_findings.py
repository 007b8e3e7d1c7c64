"""Findings rules for sampled repeats without gating (``placement-rates``).

``placement-v3`` (X-40) reads a stage as failed when *any* trial failed (pass^k): right for a
deterministic model and a few repeats, meaningless for 20 repeats at temperature 0.7, where every
group of a small model fails now and then. This rule set compares pass *rates* instead, one finding
per anomaly stage, each sentence with its counts, Wilson intervals, two-sided p (the plan's test) and the
p adjusted for the report's family of comparisons (``_family``: B vs A, C vs A, B vs C and v2 vs v1 in every
anomaly stage, held at α together):

- the control (v1, no state message) first: without a verdict (``control-no-verdict``), or passing
  so rarely that its Wilson upper bound is below one half (``control-weak``), the model cannot do
  the task reliably and no placement conclusion is drawn;
- otherwise B (state before the history) and C (state as a user message) are each compared with A
  (the trailing assistant state): separable only when the adjusted p < α (``analysis.alpha``, 0.05 by
  default), in either direction. Both better than A: ``trailing-assistant-worse``; only B shown better:
  ``position-shown-to-help``; only C: ``role-shown-to-help``; either worse than A:
  ``placement-worse-than-control``; neither separable: ``no-separable-difference``. A comparison that is
  not separable is "not shown", never "does not help"; that one placement helps *more* than the other is
  said only when B vs C is separable, and B vs C is read only once a placement differs from A (the closed
  test rejects A = B = C first);
- the sentinel (v2, the original mapping) is compared with the control v1: below it (adjusted p < α) is
  the anomaly reproduced (``sentinelReproduced``), otherwise not shown at this n.

Every claimed difference is separable, so a rule that claims one is ``shown``; every comparison
names both counts and its p. A pure function of (passes, n) per group and stage (errors and skips
are not in n) and, for repeats that are not sampled draws, of the distinct answers behind them: identical
repeats are one sample repeated, so a difference is decided on those.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.plan import FindingsSpec
from harness.stats import (
    ALPHA,
    DEFAULT_TEST,
    TITLES,
    FamilyMethod,
    TestName,
    adjusted_text,
    p_text,
    p_value,
    verdict_text,
    wilson_interval,
)

from ._evidence import CountsByGroup, comparison
from ._family import Family, FamilyResult, run_families
from ._models import Finding, FindingsResult, ModelKind, StageStatus

RATE_RULES = "placement-rates"
Counts = tuple[int, int]


def _rate(group: str, counts: Counts | None) -> str:
    if counts is None or counts[1] == 0:
        return f"{group} no trial with a verdict"
    low, high = wilson_interval(*counts)
    return f"{group} {counts[0]}/{counts[1]} (Wilson {low:.2f}–{high:.2f})"


def _versus(group: str, mine: Counts | None, control: str, theirs: Counts | None, alpha: float,
            test: TestName, family: FamilyResult, samples: CountsByGroup | None = None,
            stage: str = "") -> tuple[str, str]:
    """(``better`` / ``worse`` / ``same`` / ``unknown``, the sentence part with p and adjusted p); decided on the
    family's adjusted p, of the distinct answers when the repeats are not sampled draws (``samples``)."""
    if not mine or not theirs or mine[1] == 0 or theirs[1] == 0:
        return "unknown", f"{group} vs {control}: not compared (a side has no trial with a verdict)"
    p = p_value(mine[0], mine[1], theirs[0], theirs[1], test)
    held = family.get(stage, group, control) if family.name != "none" else None
    distinct = samples or {}
    (a, n), (b, m) = distinct.get(group, {}).get(stage, mine), distinct.get(control, {}).get(stage, theirs)
    text = f"{group} {mine[0]}/{mine[1]} vs {control} {theirs[0]}/{theirs[1]}: {TITLES[test]} "
    if ((a, n), (b, m)) != (mine, theirs) and n and m:
        q = p_value(a, n, b, m, test)
        text += (f"{p_text(p, alpha)}, but identical repeats are one sample repeated: on the distinct answers "
                 f"{group} {a}/{n} vs {control} {b}/{m}, {adjusted_text(q, held, alpha)}")
        p = q
    else:
        text += adjusted_text(p, held, alpha)
    decided = p if held is None else held
    if decided >= alpha:
        return "same", f"{text}, {verdict_text(False)}"
    better = a * m > b * n
    return ("better" if better else "worse"), (f"{text}, {verdict_text(True, alpha, held is not None)}, "
                                               f"{group} {'above' if better else 'below'} {control}")


_RULES: dict[tuple[str, str], str] = {
    ("better", "better"): "trailing-assistant-worse",
    ("better", "same"): "position-shown-to-help",
    ("same", "better"): "role-shown-to-help",
    ("same", "same"): "no-separable-difference",
}
CLAIMS = ("trailing-assistant-worse", "position-shown-to-help", "role-shown-to-help", "placement-worse-than-control")


def _between(b: str, c: str, got: Mapping[str, Counts | None], alpha: float, test: TestName, family: FamilyResult,
             samples: CountsByGroup | None, stage: str) -> str:
    """``; B vs C: …``: which placement does better, said only when B vs C is separable in the family."""
    verdict, text = _versus(b, got[b], c, got[c], alpha, test, family, samples, stage)
    if verdict == "unknown":
        return ""
    if verdict == "same":
        return f"; which of {b} and {c} helps more is not shown ({text})"
    if verdict == "worse":  # said the right way round: the better placement first
        _, text = _versus(c, got[c], b, got[b], alpha, test, family, samples, stage)
        b, c = c, b
    return f"; {b} helps more than {c} ({text})"


def _placements(spec: FindingsSpec, stage: str, got: Mapping[str, Counts | None], alpha: float, test: TestName,
                family: FamilyResult, samples: CountsByGroup | None) -> tuple[str, str]:
    """(rule, its sentence without the stage) for a stage whose control can do the task."""
    a, b, c = spec.placementControl, spec.positionGroup, spec.roleGroup
    vb, tb = _versus(b, got[b], a, got[a], alpha, test, family, samples, stage)
    vc, tc = _versus(c, got[c], a, got[a], alpha, test, family, samples, stage)
    worse = [g for g, v in ((b, vb), (c, vc)) if v == "worse"]
    if "unknown" in (vb, vc):
        return "inconclusive", f"a placement group has no trial with a verdict ({tb}; {tc})"
    if worse:
        return "placement-worse-than-control", (f"{' and '.join(worse)} pass{'es' if len(worse) == 1 else ''} less "
                                                f"often than {a} ({tb}; {tc})")
    rule = _RULES[(vb, vc)]
    why = {"trailing-assistant-worse": f"both alternatives pass more often than the trailing assistant state {a}: "
                                       "that placement is implicated",
           "position-shown-to-help": f"moving the state before the history ({b}) helps; whether making it a user "
                                     f"message ({c}) helps is not shown at this n",
           "role-shown-to-help": f"making the state a user message ({c}) helps; whether moving it before the "
                                 f"history ({b}) helps is not shown at this n",
           "no-separable-difference": "no placement is separable from the trailing assistant state at this n"}[rule]
    between = _between(b, c, got, alpha, test, family, samples, stage) if rule in CLAIMS else ""
    return rule, f"{why} ({tb}; {tc}){between}"


def _stage_finding(spec: FindingsSpec, stage: str, counts: Mapping[str, Mapping[str, Counts]],
                   outcomes: Mapping[str, Mapping[str, StageStatus]], alpha: float, test: TestName,
                   family: FamilyResult, samples: CountsByGroup | None = None) -> Finding:
    a, b, c, v1, v2 = spec.placementControl, spec.positionGroup, spec.roleGroup, spec.controlGroup, spec.sentinelGroup
    got = {g: counts.get(g, {}).get(stage) for g in (a, b, c, v2, v1)}
    rates = ", ".join(_rate(g, got[g]) for g in (a, b, c, v2, v1))
    basis = {g: {stage: outcomes[g][stage]} for g in (a, b, c, v2, v1) if stage in outcomes.get(g, {})}
    sentinel, sentinel_text = _versus(v2, got[v2], v1, got[v1], alpha, test, family, samples, stage)
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
        rule, why = _placements(spec, stage, got, alpha, test, family, samples)
        statement = f"{stage}: {why}."
        not_shown = (f"Why the placements differ (read the failure modes and transcripts), or {beyond}; a "
                     "difference that is not separable is not shown to be absent.")
    deciding = samples or counts
    pairs = [(b, a), (c, a)] + ([(b, c)] if rule in CLAIMS else [])
    rests = [e for g, o in pairs if (e := comparison(stage, g, o, deciding, alpha, test, family)) is not None]
    return Finding(rule=f"{RATE_RULES}/{rule}", statement=f"{statement} Pass rates: {rates}.", doesNotShow=not_shown,
                   basis=basis, sentinelReproduced=reproduced, sentinelStatement=sentinel_statement,
                   limitedBy=limited, restsOn=rests, shown=True if rule in CLAIMS else None)


def derive_rate_findings(spec: FindingsSpec, counts: Mapping[str, Mapping[str, Counts]],
                         outcomes: Mapping[str, Mapping[str, StageStatus]], *, model_kind: ModelKind,
                         maintenance_ran: bool, alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
                         samples: CountsByGroup | None = None, family: Family = "findings",
                         method: FamilyMethod = "exact") -> FindingsResult:
    """One finding per anomaly stage that any group ran, plus the X-42 / X-44 caveats; ``alpha``, ``test``,
    ``family``, ``method``: the plan's ``analysis`` (separable when the family-adjusted p < alpha; ``family``: a
    sweep's, already adjusted); ``samples``: the distinct answers behind the counts when the repeats are not
    sampled draws."""
    deciding, _ = run_families(spec, counts, samples, alpha, test, family, method)
    stages = [s for s in spec.anomalyStages if any(s in per for per in outcomes.values())]
    findings = [_stage_finding(spec, s, counts, outcomes, alpha, test, deciding, samples) for s in stages]
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
