"""The n and p a finding's sentence rests on (X-40, X-41), with the test it came from and the p adjusted for the
report's family of comparisons (``_family``).

A clause compares two groups in one anomaly stage: ``simple: A 0/20 vs B 9/20, Boschloo p = 0.0012, adjusted
p = 0.0036, separable (adjusted p < 0.05)``. A stage in which either group has no trial with a verdict is left
out: no sentence says anything about a stage without trials. ``comparisons`` gives the same pairs as data
(``PairEvidence``), and ``unshown`` says whether a claimed difference is separable (X-41) — its adjusted p below
α, and the first group the lower on the counts and on the independent samples — only then may a finding state
its reading as shown rather than as consistent with the trials. Without a family (``None``) each comparison
is judged at α on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.stats import ALPHA, DEFAULT_TEST, TITLES, TestName, adjusted_text, p_text, p_value, verdict_text

from ._family import FamilyResult
from ._models import PairEvidence

Counts = tuple[int, int]
"""(passes, n) over the trials with a verdict."""
CountsByGroup = Mapping[str, Mapping[str, Counts]]
"""group → stage → counts."""


def rate(group: str, counts: Counts) -> str:
    return f"{group} {counts[0]}/{counts[1]}"


def comparison(stage: str, group: str, other: str, counts: CountsByGroup, alpha: float = ALPHA,
               test: TestName = DEFAULT_TEST, family: FamilyResult | None = None,
               model: str | None = None) -> PairEvidence | None:
    """``group`` against ``other`` in one stage; None unless both have a trial with a verdict there. Separable on
    the family's adjusted p when the family holds the comparison, else on p."""
    mine, theirs = counts.get(group, {}).get(stage), counts.get(other, {}).get(stage)
    if mine is None or theirs is None or mine[1] == 0 or theirs[1] == 0:
        return None
    p = p_value(mine[0], mine[1], theirs[0], theirs[1], test)
    held = None if family is None else family.get(stage, group, other, model)
    adjusted = held if family is not None and family.name != "none" else None
    return PairEvidence(stage=stage, group=group, passes=mine[0], n=mine[1], other=other, otherPasses=theirs[0],
                        otherN=theirs[1], pValue=p, test=test, adjustedP=adjusted,
                        family=None if family is None else family.name,
                        separable=(p if adjusted is None else adjusted) < alpha)


def comparisons(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup,
                alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
                family: FamilyResult | None = None) -> list[PairEvidence]:
    """Every pair in every stage where both groups have a verdict, stage by stage."""
    return [c for stage in stages for g, o in pairs
            if (c := comparison(stage, g, o, counts, alpha, test, family)) is not None]


def pair_text(c: PairEvidence, alpha: float = ALPHA) -> str:
    """``A 0/3 vs B 3/3, Boschloo p = 0.031, adjusted p = 0.12, not separable at this n``."""
    verdict = verdict_text(c.separable, alpha, c.adjustedP is not None)
    return (f"{c.group} {c.passes}/{c.n} vs {c.other} {c.otherPasses}/{c.otherN}, {TITLES[c.test]} "
            f"{adjusted_text(c.pValue, c.adjustedP, alpha)}, {verdict}")


def clauses(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup,
            alpha: float = ALPHA, test: TestName = DEFAULT_TEST, family: FamilyResult | None = None) -> list[str]:
    """Per stage in which some pair has both groups with a verdict: ``stage: pair; pair``."""
    found = comparisons(stages, pairs, counts, alpha, test, family)
    return [f"{stage}: " + "; ".join(pair_text(c, alpha) for c in found if c.stage == stage)
            for stage in stages if any(c.stage == stage for c in found)]


def evidence_text(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup,
                  alpha: float = ALPHA, test: TestName = DEFAULT_TEST, family: FamilyResult | None = None) -> str:
    """`` (rests on: …)`` for a finding's sentence; stages where a group has no verdict are left out."""
    found = clauses(stages, pairs, counts, alpha, test, family)
    if not found:
        names = sorted({g for p in pairs for g in p})
        return f" (no stage in which {', '.join(names)} all have trials with a verdict: no p-value)"
    return " (rests on " + " | ".join(found) + ")"


def own_text(stages: Sequence[str], group: str, counts: CountsByGroup) -> str:
    """`` (rests on simple: v1 0/2 | tool_continuation: v1 0/2)``: for a claim about one group alone, only
    that group's figures (no comparison it does not make)."""
    found = [f"{stage}: {rate(group, c)}" for stage in stages if (c := counts.get(group, {}).get(stage)) and c[1]]
    return " (rests on " + " | ".join(found) + ")" if found else f" ({group} has no trial with a verdict there)"


def lower(c: PairEvidence) -> bool:
    """Is ``c.group`` separably below ``c.other`` (separable, and its pass rate the lower)?"""
    return c.separable and c.passes * c.otherN < c.otherPasses * c.n


def unshown(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup,
            samples: CountsByGroup | None = None, alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
            family: FamilyResult | None = None) -> list[tuple[str, str]]:
    """The pairs (worse, better) whose difference no stage shows: in no stage where both have a verdict is the
    first separably below the second (the family's adjusted p, decided on ``samples`` when given: the
    independent samples behind the counts, at most the distinct answers), lower on the counts and on the
    samples too. Empty: every claimed difference is shown."""
    def shown(g: str, o: str, stage: str) -> bool:
        c = comparison(stage, g, o, counts, alpha, test, family)
        if c is None or not lower(c):
            return False
        e = None if samples is None else comparison(stage, g, o, samples, alpha, test, family)
        return samples is None or (e is not None and lower(e))

    return [(g, o) for g, o in pairs if not any(shown(g, o, s) for s in stages)]


def dependence_text(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup,
                    samples: CountsByGroup, alpha: float = ALPHA, test: TestName = DEFAULT_TEST,
                    as_counts: FamilyResult | None = None, family: FamilyResult | None = None) -> str:
    """``simple: A 0/4 vs B 4/4 are at most A 0/1 vs B 1/1 independent samples, Boschloo p = 1.0``: for each
    pair separable on its counts (``as_counts``: the family as if the repeats were independent) but not on
    its independent samples (``family``: identical repeats are one sample)."""
    out = []
    for stage in stages:
        for g, o in pairs:
            c = comparison(stage, g, o, counts, alpha, test, as_counts)
            e = comparison(stage, g, o, samples, alpha, test, family)
            if c is not None and lower(c) and e is not None and not lower(e):
                out.append(f"{stage}: {c.group} {c.passes}/{c.n} vs {c.other} {c.otherPasses}/{c.otherN} are at "
                           f"most {e.group} {e.passes}/{e.n} vs {e.other} {e.otherPasses}/{e.otherN} independent "
                           f"samples, {TITLES[test]} {p_text(e.pValue, alpha)}")
    return "; ".join(out)
