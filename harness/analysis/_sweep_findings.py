"""Findings across the models of a sweep, stated with the discipline of one run (X-40, X-41).

Each model's run is its own experiment. A statement across models says on which models a group
failed an anomaly stage and, for every model, the counts it rests on: the group's passes / n and
the two-sided p (the plan's test) of the group against the plan's control group (``findings.controlGroup``,
v1; the placement control A when the group is the control itself) *on that model*, with its p adjusted for
the sweep's family (``_sweep_family``: every model's comparisons, held at α together) when the family holds
that comparison; one it does not hold (A, B or C against v1 under ``placement-rates``) is a description, and
claims no separability. "No group
failed" names every group's n on that model; the within-model rules are listed with the
comparisons (n and p) each rests on and whether its reading is shown at that n. Trials are
never added up across models: a pooled rate would mix different models' behaviour into one
sample, so no statement here rests on one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from harness.plan import FindingsSpec
from harness.stats import ALPHA, DEFAULT_TEST, TITLES, TestName, p_text, verdict_text, wilson_interval

from ._comparisons import compare
from ._evidence import pair_text
from ._family import FamilyResult
from ._models import Finding, StageStatus, _Tested

RULES = "sweep"
NOT_POOLED = ("Each model is a separate experiment with its own n; trials are never added up across models, "
              "so no pooled rate is given.")


@dataclass(frozen=True)
class StageOutcome:
    """One group's outcome of one stage on one model (from that model's report.json)."""

    status: StageStatus
    passes: int = 0
    n: int = 0
    failure_modes: dict[str, int] = field(default_factory=dict)
    samples: tuple[int, int] | None = None
    """(passes, n) over the distinct answers, when the repeats are not sampled draws (temperature 0)."""


ModelOutcomes = Mapping[str, Mapping[str, StageOutcome]]
"""group → stage → outcome, for one model."""


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelEvidence(_Tested):
    """What one model's run says about one group in one stage, with the comparison it rests on."""

    model: str
    status: StageStatus | None = Field(description="null: the group did not take part on this model.")
    passes: int = 0
    n: int = 0
    wilson95: tuple[float, float] | None = None
    failureModes: dict[str, int] = Field(default_factory=dict)
    comparator: str
    comparatorStatus: StageStatus | None = None
    comparatorPasses: int = 0
    comparatorN: int = 0
    pValue: float | None = Field(None, description="Group vs comparator on this model; null when either has n = 0.")
    test: TestName
    adjustedP: float | None = Field(None, description="The p adjusted for the sweep's family; null when the family "
                                                      "does not hold the comparison, or under family none.")
    separable: bool | None = Field(None, description="adjustedP < alpha (p < alpha under family none); on the distinct "
                                                     "answers when the model's repeats were one sample repeated "
                                                     "(temperature 0); null when not compared or outside the family.")
    clause: str


class SweepFinding(_Out):
    rule: str
    stage: str
    group: str | None = None
    statement: str
    doesNotShow: str
    perModel: list[ModelEvidence] = Field(default_factory=list)


def _comparator(spec: FindingsSpec, group: str) -> str:
    return spec.placementControl if group == spec.controlGroup else spec.controlGroup


def evidence(model: str, outcomes: ModelOutcomes, group: str, stage: str, comparator: str,
             alpha: float = ALPHA, test: TestName = DEFAULT_TEST, family: FamilyResult | None = None) -> ModelEvidence:
    mine = outcomes.get(group, {}).get(stage)
    other = outcomes.get(comparator, {}).get(stage)
    base = {"model": model, "comparator": comparator, "status": mine.status if mine else None,
            "comparatorStatus": other.status if other else None, "test": test}
    if mine is None:
        return ModelEvidence(**base, clause=f"{group} did not take part in {stage}")
    counts = {"passes": mine.passes, "n": mine.n, "failureModes": dict(mine.failure_modes),
              "wilson95": wilson_interval(mine.passes, mine.n) if mine.n else None}
    modes = (" (failure modes: " + ", ".join(f"{k} {v}" for k, v in sorted(mine.failure_modes.items())) + ")"
             if mine.failure_modes else "")
    head = f"{group} {mine.status} {mine.passes}/{mine.n}{modes}"
    if other is None or other.n == 0 or mine.n == 0:
        why = (f"{comparator} has no trial with a verdict" if other is not None and other.n == 0 else
               f"{comparator} did not take part" if other is None else f"{group} has no trial with a verdict")
        return ModelEvidence(**base, **counts, comparatorPasses=other.passes if other else 0,
                             comparatorN=other.n if other else 0, clause=f"{head}; not compared: {why}")
    both = None if mine.samples is None or other.samples is None else (mine.samples, other.samples)
    c = compare(stage, group, (mine.passes, mine.n), comparator, (other.passes, other.n), alpha, test, both,
                None if family is None else family.view(model))
    assert c.pValue is not None
    verdict = ("outside the sweep's family: a description, no separability claimed" if c.separable is None
               else verdict_text(c.separable, alpha, c.adjustedP is not None))
    clause = f"{head} vs {comparator} {other.passes}/{other.n}, {TITLES[test]} {p_text(c.pValue, alpha)}"
    if c.samplesP is not None:
        clause += (f" (identical repeats: on the distinct answers {c.groupSamples[0]}/{c.groupSamples[1]} vs "  # type: ignore[index]
                   f"{c.controlSamples[0]}/{c.controlSamples[1]}, {p_text(c.samplesP, alpha)})")  # type: ignore[index]
    if c.adjustedP is not None:
        clause += f", adjusted {p_text(c.adjustedP, alpha)}"
    clause += f", {verdict}"
    if other.status == "failed":
        clause += f" ({comparator} failed too on this model: a setup or model problem, no placement reading)"
    return ModelEvidence(**base, **counts, comparatorPasses=other.passes, comparatorN=other.n, pValue=c.pValue,
                         adjustedP=c.adjustedP, separable=c.separable, clause=clause)


def _counts(outcomes: ModelOutcomes, groups: Sequence[str], stage: str) -> str:
    """``A 3/3, B 3/3, C inconclusive (n = 0)``: each group's n in the stage on one model."""
    out = []
    for g in groups:
        o = outcomes.get(g, {}).get(stage)
        if o is not None:
            out.append(f"{g} {o.passes}/{o.n}" if o.status in ("passed", "failed") else f"{g} {o.status} (n = {o.n})")
    return ", ".join(out) or "no group took part"


def _group_finding(spec: FindingsSpec, per_model: Mapping[str, ModelOutcomes], group: str,
                   stage: str, alpha: float, test: TestName, family: FamilyResult | None) -> SweepFinding | None:
    comparator = _comparator(spec, group)
    rows = [evidence(m, o, group, stage, comparator, alpha, test, family) for m, o in per_model.items()]
    failed = [r for r in rows if r.status == "failed"]
    if not failed:
        return None
    passed = [r for r in rows if r.status == "passed"]
    other = [r for r in rows if r.status not in ("failed", "passed")]
    every = len(failed) == len(rows)
    statement = (f"{group} failed {stage} on {len(failed)} of {len(rows)} models: "
                 + "; ".join(f"{r.model} ({r.clause})" for r in failed) + ".")
    if passed:
        statement += " It passed on " + "; ".join(f"{r.model} ({r.clause})" for r in passed) + "."
    if other:
        statement += " No verdict on " + "; ".join(
            f"{r.model} ({stage} {r.status or 'not run'}, n = {r.n})" for r in other) + "."
    unseparated = all(r.separable is not True for r in failed)
    held = any(r.separable is not None for r in failed)
    limits = (f"With these n no per-model comparison of {group} with {comparator} is separable "
              f"({'adjusted ' if any(r.adjustedP is not None for r in failed) else ''}p ≥ {alpha:g}): each failure "
              "is an observation, not a demonstrated difference. " if held else
              f"The comparisons of {group} with {comparator} are not in the sweep's family: they describe, and no "
              "difference is claimed from them; each failure is an observation. ") if unseparated else ""
    return SweepFinding(
        rule=f"{RULES}/{'failed-on-every-model' if every else 'failed-on-some-models'}", stage=stage, group=group,
        statement=statement, perModel=rows,
        doesNotShow=f"{limits}That {group} fails {stage} on models outside this sweep, or how often across models. "
        + NOT_POOLED)


def _stage_finding(spec: FindingsSpec, per_model: Mapping[str, ModelOutcomes], groups: Sequence[str],
                   stage: str, alpha: float, test: TestName, family: FamilyResult | None) -> SweepFinding:
    parts, evidence_rows = [], []
    clean: list[tuple[str, str]] = []
    undecided: list[tuple[str, str]] = []
    for model, outcomes in per_model.items():
        failed = [g for g in groups if (o := outcomes.get(g, {}).get(stage)) is not None and o.status == "failed"]
        taken = [g for g in groups if stage in outcomes.get(g, {})]
        if failed:
            rows = [evidence(model, outcomes, g, stage, _comparator(spec, g), alpha, test, family) for g in failed]
            evidence_rows += rows
            parts.append(f"on {model} {', '.join(failed)} failed (" + "; ".join(r.clause for r in rows) + ")")
        elif taken and all(outcomes[g][stage].status == "passed" for g in taken):
            clean.append((model, f"({_counts(outcomes, taken, stage)})"))
        else:
            undecided.append((model, f"({_counts(outcomes, taken, stage)})"))
    parts += [f"on {m} no group failed {n}" for m, n in clean]
    parts += [f"on {m} no group failed, but not every group has a verdict {n}" for m, n in undecided]
    failing = [m for m, o in per_model.items() if any(s.get(stage) and s[stage].status == "failed" for s in o.values())]
    rule = "some-models-failed" if failing else "no-model-failed"
    return SweepFinding(
        rule=f"{RULES}/{stage}/{rule}", stage=stage, perModel=evidence_rows,
        statement=f"{stage} across {len(per_model)} model{'' if len(per_model) == 1 else 's'}: " + "; ".join(parts)
        + ".",
        doesNotShow="Which placement is responsible on a model (that model's own findings say so, with its "
        "comparisons), or anything about models outside this sweep. " + NOT_POOLED)


def _reading(finding: Finding) -> str:
    """How far a model's finding goes, in words: its reading shown, only consistent with the trials, or none."""
    if finding.shown is False and finding.restsOn and all(c.separable for c in finding.restsOn):
        return "consistent with its trials, not shown (separable counts, but its finding says why not: identical " \
               "repeats are one sample repeated)"
    return {True: "shown at this n", False: "consistent with its trials, not shown at this n",
            None: "no difference claimed"}[finding.shown]


def _model_rules(model: str, findings: Sequence[Finding], outcomes: ModelOutcomes, groups: Sequence[str],
                 stages: Sequence[str], alpha: float) -> str:
    """``M: trailing-assistant-implicated, not shown at this n (simple: A 0/3 vs B 3/3, Boschloo p = 0.031, …)``:
    each of the model's findings with the comparisons (or, comparing nothing, the counts) it rests on."""
    if not findings:
        return f"{model}: no finding"
    parts = []
    for f in findings:
        if f.restsOn:
            rests = "; ".join(f"{c.stage}: {pair_text(c, alpha)}" for c in f.restsOn)
        else:
            rests = " | ".join(f"{s}: {_counts(outcomes, groups, s)}" for s in stages
                               if any(s in o for o in outcomes.values()))
        parts.append(f"{f.rule.split('/')[-1]}, {_reading(f)} ({rests or 'no trial with a verdict'})")
    return f"{model}: " + "; ".join(parts)


def _rules_finding(findings: Mapping[str, Sequence[Finding]], per_model: Mapping[str, ModelOutcomes],
                   groups: Sequence[str], stages: Sequence[str], alpha: float) -> SweepFinding:
    named = {m: tuple(f.rule.split("/")[-1] for f in fs) or ("none",) for m, fs in findings.items()}
    distinct = set(named.values())
    if len(named) == 1:  # one model ran: nothing to agree or differ with
        agreement = f"only {next(iter(named))} has findings, so no agreement between models can be read"
    elif len(distinct) == 1:
        agreement = f"the same rule fired on each of the {len(named)} models"
    else:
        agreement = f"the rules differ between models ({len(distinct)} distinct)"
    anomaly = [g for g in groups if any(s in o.get(g, {}) for o in per_model.values() for s in stages)]
    return SweepFinding(
        rule=f"{RULES}/placement-rules", stage=", ".join(stages),
        statement="Within-model placement findings (X-40), each on that model's own trials (its p-values adjusted for "
        "the sweep's family when the sweep has one): "
        + " | ".join(_model_rules(m, fs, per_model.get(m, {}), anomaly, stages, alpha) for m, fs in findings.items())
        + f". {agreement[:1].upper()}{agreement[1:]}.",
        doesNotShow="A placement effect that holds across models: agreement between a few models is not "
        "evidence about others, and disagreement may be chance at these n. " + NOT_POOLED)


def cross_model_findings(spec: FindingsSpec, per_model: Mapping[str, ModelOutcomes], groups: Sequence[str],
                         findings: Mapping[str, Sequence[Finding]], alpha: float = ALPHA,
                         test: TestName = DEFAULT_TEST, family: FamilyResult | None = None) -> list[SweepFinding]:
    """Per anomaly stage: what failed on which model, then each group that failed somewhere; last,
    the within-model findings side by side. ``groups`` in plan order; ``findings``: model → its findings
    (each with the comparisons it rests on; ``_sweep_family.model_findings`` restates them with the sweep's
    family); ``alpha``, ``test``: the plan's ``analysis``; ``family``: the sweep's (None: each comparison at α)."""
    out: list[SweepFinding] = []
    stages = [s for s in spec.anomalyStages if any(s in st for o in per_model.values() for st in o.values())]
    for stage in stages:
        out.append(_stage_finding(spec, per_model, groups, stage, alpha, test, family))
        out += [f for g in groups if (f := _group_finding(spec, per_model, g, stage, alpha, test, family))
                is not None]
    if findings:
        out.append(_rules_finding(findings, per_model, groups, stages, alpha))
    return out
