"""The checks of a plan's sequential stages, each at its JSON path (X-1, X-4, X-13), and the comparisons
that decide a sequential stage's stop (``stages[].sequential``, modelled in ``_sequential_spec``)."""

from __future__ import annotations

from ._models import Plan, StageSpec

Loc = tuple[str | int, ...]


def sequential_pairs(plan: Plan, stage: StageSpec) -> list[tuple[str, str]]:
    """The comparisons that decide a stop of a sequential ``stage``: its own, else the findings rules' pairs
    of which both groups take part in it ([] for a stage that is not sequential)."""
    spec = stage.sequential
    if spec is None:
        return []
    if spec.comparisons is not None:
        return [(a, b) for a, b in spec.comparisons]
    taking_part = {g.id for g in plan.participants(stage)}
    return [(a, b) for a, b in plan.findings.pairs() if a in taking_part and b in taking_part]


def sequential_errors(plan: Plan) -> list[tuple[Loc, str]]:
    """Each problem of a sequential stage at its JSON path: failFast, the last look, the groups compared."""
    out: list[tuple[Loc, str]] = []
    for si, stage in enumerate(plan.stages):
        spec = stage.sequential
        if spec is None:
            continue
        where: Loc = ("stages", si, "sequential")
        if stage.failFast:
            out.append((("stages", si, "failFast"), "a sequential stage cannot be failFast: its looks need every "
                        "group's trials up to each look (set failFast to false)"))
        if spec.looks[-1] != stage.repeats:
            out.append(((*where, "looks"), f"the last look ({spec.looks[-1]}) must equal the stage's repeats "
                        f"({stage.repeats})"))
        taking_part = [g.id for g in plan.participants(stage)]
        for ci, pair in enumerate(spec.comparisons or []):
            for gi, gid in enumerate(pair):
                if gid not in taking_part:
                    out.append(((*where, "comparisons", ci, gi), f"group {gid!r} does not take part in stage "
                                f"{stage.id!r} (its groups: {', '.join(taking_part)})"))
        if spec.comparisons is not None and not spec.comparisons:
            out.append(((*where, "comparisons"), "no comparison: a stop needs at least one (or null for the "
                        "findings rules' pairs)"))
        elif spec.comparisons is None and not sequential_pairs(plan, stage):
            out.append(((*where, "comparisons"), f"none of the findings rules' pairs takes part in stage "
                        f"{stage.id!r}: name the comparisons, e.g. [[\"B\", \"A\"]]"))
    return out
