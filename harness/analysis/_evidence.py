"""The n and Fisher p a finding's sentence rests on (X-40, X-41, issue 11).

A clause compares two groups in one anomaly stage: ``simple: A 0/3 vs B 3/3, Fisher p = 0.10, not
separable at this n``. A stage in which either group has no trial with a verdict is left out: no
sentence says anything about a stage without trials.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._stats import fisher_p, separable

Counts = tuple[int, int]
"""(passes, n) over the trials with a verdict."""
CountsByGroup = Mapping[str, Mapping[str, Counts]]
"""group → stage → counts."""


def rate(group: str, counts: Counts) -> str:
    return f"{group} {counts[0]}/{counts[1]}"


def pair(stage: str, group: str, other: str, counts: CountsByGroup) -> str | None:
    """``A 0/3 vs B 3/3, Fisher p = 0.10, not separable at this n``; None unless both have a verdict there."""
    mine, theirs = counts.get(group, {}).get(stage), counts.get(other, {}).get(stage)
    if mine is None or theirs is None or mine[1] == 0 or theirs[1] == 0:
        return None
    p = fisher_p(mine[0], mine[1], theirs[0], theirs[1])
    verdict = "separable (p < 0.05)" if separable(p) else "not separable at this n"
    return f"{rate(group, mine)} vs {rate(other, theirs)}, Fisher p = {p:.2f}, {verdict}"


def clauses(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup) -> list[str]:
    """Per stage in which some pair has both groups with a verdict: ``stage: pair; pair``."""
    out = []
    for stage in stages:
        found = [c for g, o in pairs if (c := pair(stage, g, o, counts)) is not None]
        if found:
            out.append(f"{stage}: " + "; ".join(found))
    return out


def evidence_text(stages: Sequence[str], pairs: Sequence[tuple[str, str]], counts: CountsByGroup) -> str:
    """`` (rests on: …)`` for a finding's sentence; stages where a group has no verdict are left out."""
    found = clauses(stages, pairs, counts)
    if not found:
        names = sorted({g for p in pairs for g in p})
        return f" (no stage in which {', '.join(names)} all have trials with a verdict: no Fisher p)"
    return " (rests on " + " | ".join(found) + ")"
