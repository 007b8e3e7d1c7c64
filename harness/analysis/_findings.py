"""The findings rules of X-40 (``placement-v3``), plus the caveats of X-42, X-44 and P-91.

A pure function of the groups' outcomes and counts in the anomaly stages. Every sentence names the n
and the two-sided p it rests on, with its test (``analysis.test``; ``_evidence``), and words its claim
by them (X-41): a rule's reading ("the trailing assistant placement is implicated") is stated only when
every difference it claims is separable (its p adjusted for the report's family of comparisons below α, the
plan's ``analysis.alpha``, 0.05 by default; ``_family``); otherwise the sentence says what happened in these
trials and that it is consistent with the reading, not shown at this n (``Finding.shown``); repeats that are
one sample repeated (identical answers at temperature 0) count as the distinct answers they are: the clauses a
finding rests on are the counts' (adjusted as if the repeats were draws), and whether a reading is shown is
decided on the independent samples'. The sentinel sentence is made only for stages in which the
sentinel has a verdict and the control passed, otherwise it says the sentinel's result is not
interpretable; a stage without any trial with a verdict is never described as passed or failed. F(g)
means "g failed an anomaly stage" (status ``failed``). ``inconclusive``, ``not_reached`` and
``skipped`` are *not* failures: such a group has no verdict. When a rule's premises involve a group
without a verdict, the rule is evaluated for every possible verdict of those groups; it fires only
if all of them lead to the same rule (and the finding names what limited it), otherwise the finding
is ``inconclusive`` and lists the candidates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import Literal

from harness.plan import FindingsSpec
from harness.stats import ALPHA, DEFAULT_TEST, FamilyMethod, TestName

from ._evidence import CountsByGroup, comparisons, dependence_text, evidence_text, own_text, rate, unshown
from ._family import Family, FamilyResult, run_families
from ._models import Finding, FindingsResult, ModelKind, PairEvidence, StageStatus
from ._readings import reading

Verdict = Literal["failed", "passed", "unknown"]
RULES = "placement-v3"


def anomaly_verdict(statuses: Mapping[str, StageStatus], stages: Sequence[str]) -> Verdict:
    """failed if any anomaly stage failed; passed if every one it took part in passed; else unknown."""
    taken = [statuses[s] for s in stages if s in statuses]
    if any(s == "failed" for s in taken):
        return "failed"
    if taken and all(s == "passed" for s in taken):
        return "passed"
    return "unknown"


def _placement_rule(fa: bool, fb: bool, fc: bool, fv2: bool) -> str:
    """The rule table of X-40 for a passing control, over definite verdicts."""
    if fa:
        return {
            (False, False): "trailing-assistant-implicated",
            (False, True): "position-implicated",
            (True, False): "role-implicated",
            (True, True): "every-placement-fails",
        }[(fb, fc)]
    if fb or fc:
        return "placement-worse-than-control"
    return "not-reproduced-under-v3-prompt" if fv2 else "not-reproduced"


class _Context:
    def __init__(self, spec: FindingsSpec, outcomes: Mapping[str, Mapping[str, StageStatus]],
                 counts: CountsByGroup, samples: CountsByGroup | None, alpha: float, test: TestName,
                 families: tuple[FamilyResult, FamilyResult]) -> None:
        self.spec = spec
        self.alpha, self.test = alpha, test
        self.family, self.as_counts = families
        self.counts = counts
        self.samples = samples
        self.stages = list(spec.anomalyStages)
        names = [spec.controlGroup, spec.placementControl, spec.positionGroup, spec.roleGroup, spec.sentinelGroup]
        self.basis = {g: {s: st for s, st in outcomes.get(g, {}).items() if s in self.stages} for g in names}
        self.verdict = {g: anomaly_verdict(outcomes.get(g, {}), self.stages) for g in names}

    def describe(self, group: str) -> str:
        statuses = self.basis[group]
        if not statuses:
            return f"{group}: did not take part in {', '.join(self.stages)}"
        mine = self.counts.get(group, {})
        return f"{group}: " + ", ".join(f"{s} {st} ({mine[s][0]}/{mine[s][1]})" if mine.get(s, (0, 0))[1]
                                       else f"{s} {st} (n = 0)" for s, st in statuses.items())

    def evidence(self, pairs: Sequence[tuple[str, str]], stages: Sequence[str] | None = None) -> str:
        return evidence_text(self.stages if stages is None else stages, pairs, self.counts, self.alpha, self.test,
                             self.as_counts)

    def rests(self, pairs: Sequence[tuple[str, str]], stages: Sequence[str] | None = None) -> list[PairEvidence]:
        return comparisons(self.stages if stages is None else stages, pairs, self.counts, self.alpha, self.test,
                           self.as_counts)

    def rates(self, groups: Sequence[str]) -> str:
        """``simple: A 3/3, B 3/3 | tool_continuation: …``: the n of each group in each stage it has a verdict."""
        parts = []
        for stage in self.stages:
            found = [rate(g, self.counts[g][stage]) for g in groups if self.counts.get(g, {}).get(stage, (0, 0))[1]]
            if found:
                parts.append(f"{stage}: " + ", ".join(found))
        return " | ".join(parts) or "no trial with a verdict"

    def failed_stages(self, group: str) -> str:
        return ", ".join(s for s, st in self.basis[group].items() if st == "failed")

    def failed_in(self, groups: Sequence[str]) -> str:
        """``failed simple`` when the groups failed the same stages, else each group's stages."""
        stages = [self.failed_stages(g) for g in groups]
        if len(set(stages)) == 1:
            return f"failed {stages[0]}"
        return "failed " + "; ".join(f"{g}: {st}" for g, st in zip(groups, stages, strict=True))

    def unknown(self, groups: Sequence[str]) -> list[str]:
        return [g for g in groups if self.verdict[g] == "unknown"]

    def not_shown(self, pairs: Sequence[tuple[str, str]], stages: Sequence[str] | None = None) -> str | None:
        """None when every claimed difference is shown; else why not, as the end of a sentence."""
        stages = self.stages if stages is None else stages
        missing = unshown(stages, pairs, self.counts, self.samples, self.alpha, self.test, self.family)
        if not missing:
            return None
        raw = unshown(stages, pairs, self.counts, alpha=self.alpha, test=self.test, family=self.as_counts)
        apart = [f"{g} vs {o}" for g, o in pairs if (g, o) not in missing]
        why = "not shown at this n" if raw else "not shown"
        if apart:
            why += f" (of the differences it rests on, only {', '.join(apart)} is separable)"
        repeated = [p for p in missing if p not in raw]
        if repeated and self.samples is not None:
            why += (f"{'; and' if raw else ':'} identical repeats are one sample repeated ("
                    + dependence_text(stages, repeated, self.counts, self.samples, self.alpha, self.test,
                                      self.as_counts, self.family) + ")")
        return why


def _sentinel(ctx: _Context) -> tuple[bool | None, str]:
    """Did the sentinel reproduce the anomaly? Only readable in stages where the control passed; said as
    shown only when v2 is separably below the control there (X-41)."""
    v2, v1 = ctx.spec.sentinelGroup, ctx.spec.controlGroup
    verdict = ctx.verdict[v2]
    if verdict == "unknown":
        return None, f"Whether the sentinel {v2} reproduced the anomaly is unknown ({ctx.describe(v2)})."
    stages = [s for s, st in ctx.basis[v2].items() if st == verdict]  # stages with trials and that verdict
    readable = [s for s in stages if ctx.basis[v1].get(s) == "passed"]
    if not readable:
        return None, (f"The sentinel {v2}'s result is not interpretable: it {verdict} {', '.join(stages)}, but the "
                      f"sentinel control {v1} did not pass {'that stage' if len(stages) == 1 else 'those stages'} "
                      f"({ctx.describe(v1)}), so the anomaly cannot be told apart from a setup or model problem.")
    evidence = ctx.evidence([(v2, v1)], readable)
    if verdict == "failed":
        why = ctx.not_shown([(v2, v1)], readable)
        if why is not None:
            return True, (f"The sentinel {v2} (unified@2) reproduced the anomaly in these trials: it failed "
                          f"{', '.join(readable)}, which the sentinel control {v1} passed{evidence}; that {v2} "
                          f"fails more often than {v1} is {why}.")
        return True, (f"The sentinel {v2} (unified@2) reproduced the anomaly: it failed {', '.join(readable)}, "
                      f"which the sentinel control {v1} passed{evidence}.")
    return False, (f"The sentinel {v2} (unified@2) did not reproduce the anomaly in these trials: it passed "
                   f"{', '.join(readable)}{evidence}.")


def _texts(rule: str, ctx: _Context, failed: Sequence[str]) -> tuple[str, str, list[PairEvidence], bool | None]:
    """(statement, doesNotShow, the comparisons it rests on, shown) of a rule that fired."""
    s = ctx.spec
    a, b, c, v1, v2 = s.placementControl, s.positionGroup, s.roleGroup, s.controlGroup, s.sentinelGroup
    if rule == "control-failed":
        stages = [st for st, status in ctx.basis[v1].items() if status == "failed"]
        return (f"The sentinel control {v1} (unified@1) failed {ctx.failed_stages(v1)}"
                f"{own_text(stages, v1, ctx.counts)}: read as a setup or model problem (X-40). No placement "
                "conclusion is drawn.",
                "Anything about the position, role or prompt of the state block: with the sentinel control failing, "
                "the other groups' outcomes cannot be attributed to placement.",
                [], None)
    if rule == "control-inconclusive":
        return (f"The sentinel control {v1} reached no verdict ({ctx.describe(v1)}): a "
                "setup or model problem cannot be excluded, so no placement conclusion is drawn.",
                "Anything about placement; rerun once the sentinel control completes the anomaly stages.",
                [], None)
    if rule == "not-reproduced":
        return (f"In these trials no group failed the anomaly stages, {v2} included ({ctx.rates([a, b, c, v2, v1])}): "
                "the anomaly did not reproduce at all; the experiment is inconclusive.",
                "That any placement is safe or that the original failure is fixed: it did not occur in these trials.",
                [], None)
    r = reading(rule, ctx.spec, ctx.failed_in, failed)
    ev, rests = ctx.evidence(r.pairs), ctx.rests(r.pairs)
    why = ctx.not_shown(r.pairs)
    if why is None:
        return f"{r.happened[:1].upper()}{r.happened[1:]}{ev}: {r.shown}.", r.not_shown, rests, True
    return f"In these trials {r.happened}{ev}: consistent with {r.consistent}, {why}.", r.not_shown, rests, False


def _placement_finding(ctx: _Context) -> tuple[str, str, str, list[str], list[PairEvidence], bool | None]:
    s = ctx.spec
    groups = [s.placementControl, s.positionGroup, s.roleGroup, s.sentinelGroup]
    unknown = ctx.unknown(groups)
    options = [[True, False] if ctx.verdict[g] == "unknown" else [ctx.verdict[g] == "failed"] for g in groups]
    candidates = {_placement_rule(*combo) for combo in product(*options)}
    limited = [ctx.describe(g) for g in unknown]
    if len(candidates) == 1:
        rule = candidates.pop()
        failed = [g for g in (s.positionGroup, s.roleGroup) if ctx.verdict[g] == "failed"]
        statement, not_shown, rests, shown = _texts(rule, ctx, failed)
        return rule, statement, not_shown, limited, rests, shown
    names = ", ".join(unknown)
    pairs = [(s.placementControl, s.positionGroup), (s.placementControl, s.roleGroup)]
    statement = (
        f"Undetermined: {names} reached no verdict ({'; '.join(limited)}). Depending on "
        f"{'its' if len(unknown) == 1 else 'their'} outcome the evidence would support: "
        + " / ".join(sorted(candidates)) + ctx.evidence(pairs) + "."
    )
    return "inconclusive", statement, "Any placement conclusion until those groups complete the anomaly stages.", \
        limited, ctx.rests(pairs), None


def derive_findings(
    spec: FindingsSpec,
    outcomes: Mapping[str, Mapping[str, StageStatus]],
    *,
    counts: CountsByGroup,
    maintenance_ran: bool,
    model_kind: ModelKind,
    baseline_maintenance_ran: bool | None = None,
    samples: CountsByGroup | None = None,
    alpha: float = ALPHA,
    test: TestName = DEFAULT_TEST,
    family: Family = "findings",
    method: FamilyMethod = "exact",
    as_counts: FamilyResult | None = None,
) -> FindingsResult:
    """Findings and caveats from group → stage → status and (passes, n) (X-40, X-42, X-44, P-91).

    ``samples``: group → stage → the independent samples behind (passes, n), at most the distinct
    passing and failing answers, for repeats that are not independent draws (temperature 0: identical
    repeats are one sample repeated); a difference is shown only if separable on those too. None: the
    repeats are taken as independent. ``alpha``, ``test``, ``family``, ``method``: the plan's ``analysis``; a
    difference is separable when its family-adjusted p < alpha (``family``: one already adjusted, a sweep's or the
    report's, with ``as_counts`` the same family on the counts when the repeats are not sampled draws)."""
    ctx = _Context(spec, outcomes, counts, samples, alpha, test,
                   run_families(spec, counts, samples, alpha, test, family, method, as_counts))
    v1 = spec.controlGroup
    if ctx.verdict[v1] == "failed":
        rule, limited = "control-failed", []
        statement, not_shown, rests, shown = _texts(rule, ctx, [])
    elif ctx.verdict[v1] == "unknown":
        rule, limited = "control-inconclusive", [ctx.describe(v1)]
        statement, not_shown, rests, shown = _texts(rule, ctx, [])
    else:
        rule, statement, not_shown, limited, rests, shown = _placement_finding(ctx)
    reproduced, sentinel_text = _sentinel(ctx)
    finding = Finding(
        rule=f"{RULES}/{rule}",
        statement=f"{statement} {sentinel_text}",
        doesNotShow=not_shown,
        basis=ctx.basis,
        sentinelReproduced=reproduced,
        sentinelStatement=sentinel_text,
        limitedBy=limited,
        restsOn=rests,
        shown=shown,
    )
    passed_any = any(st == "passed" for per in outcomes.values() for st in per.values())
    return FindingsResult(findings=[finding], caveats=_caveats(ctx, maintenance_ran, model_kind,
                                                                  baseline_maintenance_ran, passed_any))


def _caveats(ctx: _Context, maintenance_ran: bool, model_kind: ModelKind,
             baseline_maintenance_ran: bool | None, passed_any: bool) -> list[str]:
    out: list[str] = []
    if model_kind == "scripted":
        out.append("Scripted models: this run checks the harness mechanisms, not LLM behaviour; nothing here is "
                   "evidence about any real model (X-42).")
    elif passed_any:
        out.append("Real-model run: one model, one task, small n; a stage passed here is no guarantee of "
                   "production stability, and scripted mechanism checks are reported separately (X-42).")
    else:
        out.append("Real-model run: no group passed any stage; the failures describe this one model on this one "
                   "task at this n, not other models or tasks, and scripted mechanism checks are reported "
                   "separately (X-42).")
    if not maintenance_ran:
        out.append("No automatic maintenance (token threshold) ran in any trial: automatic compression was not "
                   "exercised, and this report makes no claim about it (X-44).")
    if baseline_maintenance_ran is False:
        out.append("The prefix@2 baseline never reached its compression threshold: the comparison with it covers "
                   "an uncompressed history only; no claim about its automatic compression is made (P-91).")
    for group, verdict in ctx.verdict.items():
        if verdict == "unknown":
            out.append(f"No verdict for {ctx.describe(group)}; this is not counted as a failure and limits the "
                       "conclusion (X-12).")
    return out
