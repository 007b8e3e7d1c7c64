"""A sequential stage's looks and where it stopped (X-12, X-41), as report.json carries them (O-2).

After each look (the repeats every group of the stage has done by then) each listed comparison gets
its two-sided Fisher p on the trials with a verdict so far, and is tested against the α its spending
function adds at that look (``look_alphas``: the boundary). A comparison *crosses* when p < its
boundary; when every listed comparison has crossed, the stage stops for all its groups. The result
is a pure function of the counts at each look, so the runner (deciding), report.json and a rescore
(stating) all read it the same way. A stage stops (``stopped``), runs to its last look without every
comparison crossing at one look (``fixed``: it ran as a fixed design), or ended before either because
the run stopped (``incomplete``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ._comparisons import Counts
from ._models import Finding, PairEvidence, StageStatus
from ._spending import Spending, look_alphas
from ._stats import fisher_p

SequentialOutcome = Literal["stopped", "fixed", "incomplete"]
_SPENDING_NAMES = {"obrien-fleming": "O'Brien–Fleming", "pocock": "Pocock"}


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SequentialDesign(_Out):
    looks: list[int] = Field(description="Repeats per group done at each look; the last is the stage's repeats.")
    spending: Spending
    alpha: float = Field(description="The plan's analysis.alpha, spent over the looks.")
    boundaries: list[float] = Field(description="The α each look tests against (the spending function's increment "
                                                "there); they sum to at most alpha.")
    comparisons: list[tuple[str, str]] = Field(description="(group, compared with): the stage stops when every one "
                                                           "has crossed at one look.")


class LookComparison(_Out):
    group: str
    other: str
    passes: int
    n: int
    otherPasses: int
    otherN: int
    fisherP: float | None = Field(description="null when a side has no trial with a verdict.")
    crossed: bool = Field(description="p < this look's boundary.")


class SequentialLook(_Out):
    look: int = Field(description="1-based.")
    repeats: int = Field(description="Repeats per group done by this look.")
    boundary: float
    n: dict[str, int] = Field(description="Trials with a verdict per group (errors are not in n).")
    comparisons: list[LookComparison]
    crossed: bool = Field(description="Every listed comparison crossed: the stage stopped here.")


class SequentialResult(_Out):
    stage: str
    design: SequentialDesign
    looks: list[SequentialLook] = Field(description="The looks evaluated, in order, up to the stop.")
    outcome: SequentialOutcome
    stoppedAt: int | None = Field(None, description="The look at which every comparison crossed (stopped).")
    ranTo: int = Field(description="Repeats per group the stage ran to.")
    statement: str


def small_p(p: float, boundary: float) -> str:
    """Two significant digits, positional ("0.00016"), with more where rounding would cross the boundary."""
    for digits in (2, 3, 4, 6):
        text = boundary_text(p, digits)
        if (float(text) < boundary) == (p < boundary):
            return text
    return format(Decimal(repr(p)), "f")


def boundary_text(value: float, digits: int = 2) -> str:
    """A boundary (or any small number) to ``digits`` significant digits, positional: "0.0019", "0.000012"."""
    return format(Decimal(f"{value:#.{digits}g}"), "f")


def _pair(group: str, other: str, counts: Mapping[str, Counts], boundary: float) -> LookComparison:
    (x, n), (y, m) = counts.get(group, (0, 0)), counts.get(other, (0, 0))
    p = fisher_p(x, n, y, m) if n and m else None
    return LookComparison(group=group, other=other, passes=x, n=n, otherPasses=y, otherN=m, fisherP=p,
                          crossed=p is not None and p < boundary)


def evaluate_sequential(stage: str, looks: Sequence[int], spending: Spending, alpha: float,
                        pairs: Sequence[tuple[str, str]],
                        counts_at: Callable[[int], Mapping[str, Counts] | None]) -> SequentialResult:
    """The looks of ``stage`` up to its stop. ``counts_at(r)``: group → (passes, n) over repeats 1 … r of
    every group that entered the stage, or None when some of those trials did not run (the run stopped)."""
    design = SequentialDesign(looks=list(looks), spending=spending, alpha=alpha,
                              boundaries=look_alphas(looks, alpha, spending), comparisons=list(pairs))
    done: list[SequentialLook] = []
    for index, (repeats, boundary) in enumerate(zip(design.looks, design.boundaries, strict=True)):
        counts = counts_at(repeats)
        if counts is None:
            break
        compared = [_pair(g, o, counts, boundary) for g, o in pairs]
        crossed = bool(compared) and all(c.crossed for c in compared)
        done.append(SequentialLook(look=index + 1, repeats=repeats, boundary=boundary,
                                   n={g: n for g, (_, n) in counts.items()}, comparisons=compared, crossed=crossed))
        if crossed:
            break
    if done and done[-1].crossed:
        outcome: SequentialOutcome = "stopped"
    else:
        outcome = "fixed" if len(done) == len(design.looks) else "incomplete"
    ran_to = done[-1].repeats if outcome == "stopped" else design.looks[-1]
    return SequentialResult(stage=stage, design=design, looks=done, outcome=outcome,
                            stoppedAt=done[-1].look if outcome == "stopped" else None, ranTo=ran_to,
                            statement=_statement(stage, design, done, outcome))


def _n_text(look: SequentialLook) -> str:
    values = set(look.n.values())
    if len(values) == 1:
        return f"n = {values.pop()} per group"
    return "n = " + ", ".join(f"{g} {n}" for g, n in look.n.items())


def _tests(look: SequentialLook) -> str:
    out = []
    for c in look.comparisons:
        if c.fisherP is None:
            out.append(f"{c.group} vs {c.other} no p (a side has no trial with a verdict)")
            continue
        sign = "<" if c.crossed else "≥"
        out.append(f"{c.group} vs {c.other} {c.passes}/{c.n} vs {c.otherPasses}/{c.otherN}, "
                   f"p = {small_p(c.fisherP, look.boundary)} {sign} boundary {boundary_text(look.boundary)}")
    return "; ".join(out)


def _statement(stage: str, design: SequentialDesign, done: list[SequentialLook], outcome: SequentialOutcome) -> str:
    head = (f"{stage} ran as a sequential design (looks at {', '.join(map(str, design.looks))} repeats, "
            f"{_SPENDING_NAMES[design.spending]} spending of α = {design.alpha:g})")
    if outcome == "stopped":
        last = done[-1]
        saved = design.looks[-1] - last.repeats
        return (f"{head} and stopped at look {last.look} ({_n_text(last)}): {_tests(last)}; the {saved} later "
                f"repeat(s) per group were not needed and did not run.")
    if outcome == "fixed":
        last = done[-1]
        return (f"{head}; no look crossed every boundary, so it ran as a fixed design to the last look "
                f"({_n_text(last)}): at look {last.look} {_tests(last)}.")
    if not done:
        return f"{head}; the run ended before its first look was complete: no look was evaluated."
    last = done[-1]
    return (f"{head}; the run ended after look {last.look} ({_n_text(last)}), before a stop or the last look: "
            f"{_tests(last)}.")


def sequential_finding(result: SequentialResult,
                       outcomes: Mapping[str, Mapping[str, StageStatus]]) -> Finding:
    """The finding that quotes where a sequential stage stopped (or that it ran as a fixed design)."""
    last = result.looks[-1] if result.looks else None
    rests = [PairEvidence(stage=result.stage, group=c.group, passes=c.passes, n=c.n, other=c.other,
                          otherPasses=c.otherPasses, otherN=c.otherN, fisherP=c.fisherP, separable=c.crossed)
             for c in (last.comparisons if last else []) if c.fisherP is not None]
    if result.outcome == "stopped":
        limits = ("Each look tests at its boundary, not at α, so over all looks the chance of a stop without a real "
                  "difference stays at most α; the pass rates are from the trials run up to the stop, fewer than "
                  "planned, and only the listed comparisons decided it.")
    elif result.outcome == "fixed":
        limits = ("That no look crossed every boundary does not show the groups alike: at these n the listed "
                  "differences were not large enough to stop early; the comparisons at the last look are read as a "
                  "fixed design's.")
    else:
        limits = "The looks the run did not reach say nothing; resume the run to finish the stage."
    basis = {g: {result.stage: s[result.stage]} for g, s in outcomes.items() if result.stage in s}
    return Finding(rule=f"sequential-{result.outcome}", statement=result.statement, doesNotShow=limits, basis=basis,
                   sentinelReproduced=None, sentinelStatement="", restsOn=rests,
                   shown=True if result.outcome == "stopped" else None)
