"""A sequential stage's looks and where it stopped (X-12, X-41), as report.json carries them (O-2).

After each look (the repeats every group of the stage has done by then) each listed comparison gets its
two-sided p (the plan's test) on the trials with a verdict so far, and is tested against that look's
threshold, calibrated exactly for the listed comparisons together (``harness.stats.calibrated``): the chance
that any of them has crossed at or before the look, maximised over the common pass rates, stays within the α
spent by then, and the threshold lies halfway between the largest p-value that crosses and the smallest that
does not. A comparison *crosses* when p < its threshold; when every listed comparison has crossed,
the stage stops for all its groups. The result is a pure function of the counts at each look, so the
runner (deciding), report.json and a rescore (stating) all read it the same way. A stage stops
(``stopped``), runs to its last look without every comparison crossing at one look (``fixed``: it ran as
a fixed design), or ended before either because the run stopped (``incomplete``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.stats import DEFAULT_TEST, TITLES, Spending, TestName, calibrated, p_grid, spent, structure

from ._comparisons import Counts
from ._models import Finding, PairEvidence, StageStatus, _Tested

SequentialOutcome = Literal["stopped", "fixed", "incomplete"]
Calibration = Literal["exact", "bonferroni"]
_SPENDING_NAMES = {"obrien-fleming": "O'Brien–Fleming", "pocock": "Pocock"}


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SequentialDesign(_Out):
    looks: list[int] = Field(description="Repeats per group done at each look; the last is the stage's repeats.")
    spending: Spending
    alpha: float = Field(description="The plan's analysis.alpha, spent over the looks.")
    test: TestName = Field(description="The test whose p-values the thresholds cut.")
    boundaries: list[float] = Field(description="Per look, the threshold: a comparison crosses when its p < it. "
                                                "Calibrated exactly (reports written before: the spending "
                                                "function's increment at the look, Fisher's test).")
    spent: list[float] | None = Field(None, description="The α spent by each look (the spending function).")
    typeOneError: list[float] | None = Field(
        None, description="Per look, the exact chance of a crossing at or before it when the groups do not differ, "
                          "maximised over their common pass rate (a certified upper bound); at most spent.")
    size: float | None = Field(None, description="The design's exact size: typeOneError at the last look, ≤ alpha.")
    comparisons: list[tuple[str, str]] = Field(description="(group, compared with): the stage stops when every one "
                                                           "has crossed at one look.")
    together: int | None = Field(
        None, description="How many listed comparisons the thresholds were calibrated for together: typeOneError and "
                          "size are the chance that any of them crosses (reports written before: one comparison).")
    calibration: Calibration | None = Field(
        None, description="exact: the comparisons' groups enumerated together; bonferroni: too many outcomes, each "
                          "comparison calibrated at the α spent divided by their number, size an upper bound (reports "
                          "written before: null).")

    @model_validator(mode="before")
    @classmethod
    def _fisher_before(cls, data: Any) -> Any:
        """Reports written before: Fisher's test, boundaries at the increments, no exact figures."""
        return {**data, "test": "fisher"} if isinstance(data, dict) and "test" not in data else data


class LookComparison(_Tested):
    group: str
    other: str
    passes: int
    n: int
    otherPasses: int
    otherN: int
    pValue: float | None = Field(description="null when a side has no trial with a verdict.")
    crossed: bool = Field(description="p < this look's threshold.")


class SequentialLook(_Out):
    look: int = Field(description="1-based.")
    repeats: int = Field(description="Repeats per group done by this look.")
    boundary: float = Field(description="This look's threshold.")
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


def sequential_design(looks: Sequence[int], spending: Spending, alpha: float, test: TestName,
                      pairs: Sequence[tuple[str, str]] = ()) -> SequentialDesign:
    """The design of a stage's looks, calibrated exactly for its listed comparisons together."""
    figures = calibrated(tuple(looks), alpha, spending, test, structure(pairs))
    return SequentialDesign(looks=list(looks), spending=spending, alpha=alpha, test=test,
                            boundaries=figures.thresholds, spent=[spent(n / looks[-1], alpha, spending) for n in looks],
                            typeOneError=figures.cumulative, size=figures.size, comparisons=list(pairs),
                            together=len(figures.comparisons), calibration="exact" if figures.exact else "bonferroni")


def size_text(size: float, together: int | None, calibration: Calibration | None) -> str:
    """"exact size 0.0470" (one comparison, or a report written before), "exact size of the 3 comparisons together
    0.0443", or for a Bonferroni split "size of the 3 comparisons together at most 0.0470"."""
    if calibration == "bonferroni":
        return f"size of the {together} comparisons together at most {boundary_text(size, 3)}"
    if together is not None and together > 1:
        return f"exact size of the {together} comparisons together {boundary_text(size, 3)}"
    return f"exact size {boundary_text(size, 3)}"


def design_text(d: SequentialDesign) -> str:
    """The design in a sentence: thresholds, type I error by each look, exact size, and why a threshold above α
    is still a valid design."""
    thresholds = ", ".join(boundary_text(b) for b in d.boundaries)
    if d.size is None or d.typeOneError is None or d.spent is None:
        return (f"thresholds per look {thresholds} ({TITLES[d.test]}'s test), each the α its spending function adds "
                f"there, together at most α = {d.alpha:g}")
    errors = ", ".join(f"{boundary_text(e)} (spent {boundary_text(s)})" for e, s in zip(d.typeOneError, d.spent,
                                                                                          strict=True))
    k = d.together or 1
    if d.calibration == "bonferroni":
        how = (f"calibrated for the {k} listed comparisons together by a Bonferroni split (too many outcomes to "
               f"enumerate them jointly: each calibrated exactly at the α spent divided by {k}): the chance that any "
               "crosses by each look without a real difference is at most")
    elif k > 1:
        how = (f"calibrated exactly for the {k} listed comparisons together: the chance that any of them crosses by "
               "each look without a real difference, maximised over the common pass rates, is")
    else:
        how = ("calibrated exactly: the chance of a crossing by each look without a real difference, maximised over "
               "the common pass rate, is")
    out = (f"thresholds per look (a comparison crosses when its {TITLES[d.test]} p is below) {thresholds}, {how} "
           f"{errors}; {size_text(d.size, d.together, d.calibration)} ≤ α = {d.alpha:g}")
    above = [str(k) for k, b in enumerate(d.boundaries, 1) if b > d.alpha]
    if above:
        at = f"threshold at look {above[0]} is" if len(above) == 1 else f"thresholds at looks {', '.join(above)} are"
        out += (f". The {at} above α and still valid: a threshold is a p-value "
                "cut-off halfway between the largest p that crosses and the smallest that does not, the test is "
                "discrete, and what is held to α is the chance of crossing, computed above")
    return out


def small_p(p: float, boundary: float) -> str:
    """Two significant digits, positional ("0.00016"), with more where rounding would cross the boundary."""
    for digits in (2, 3, 4, 6):
        text = boundary_text(p, digits)
        if (float(text) < boundary) == (p < boundary):
            return text
    return format(Decimal(repr(p)), "f")


def boundary_text(value: float, digits: int = 2) -> str:
    """A boundary (or any small number) to ``digits`` significant digits, positional: "0.0019", "0.000012"."""
    return "0" if value == 0 else format(Decimal(f"{value:#.{digits}g}"), "f")


def _pair(group: str, other: str, counts: Mapping[str, Counts], boundary: float, test: TestName) -> LookComparison:
    (x, n), (y, m) = counts.get(group, (0, 0)), counts.get(other, (0, 0))
    p = float(p_grid(n, m, test)[x, y]) if n and m else None  # the grid the thresholds were calibrated on
    return LookComparison(group=group, other=other, passes=x, n=n, otherPasses=y, otherN=m, pValue=p,
                          crossed=p is not None and p < boundary)


def evaluate_sequential(stage: str, looks: Sequence[int], spending: Spending, alpha: float,
                        pairs: Sequence[tuple[str, str]], counts_at: Callable[[int], Mapping[str, Counts] | None],
                        test: TestName = DEFAULT_TEST) -> SequentialResult:
    """The looks of ``stage`` up to its stop. ``counts_at(r)``: group → (passes, n) over repeats 1 … r of
    every group that entered the stage, or None when some of those trials did not run (the run stopped)."""
    design = sequential_design(looks, spending, alpha, test, pairs)
    done: list[SequentialLook] = []
    for index, (repeats, boundary) in enumerate(zip(design.looks, design.boundaries, strict=True)):
        counts = counts_at(repeats)
        if counts is None:
            break
        compared = [_pair(g, o, counts, boundary, design.test) for g, o in pairs]
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


def _tests(look: SequentialLook, test: TestName) -> str:
    out = []
    for c in look.comparisons:
        if c.pValue is None:
            out.append(f"{c.group} vs {c.other} no p (a side has no trial with a verdict)")
            continue
        sign = "<" if c.crossed else "≥"
        out.append(f"{c.group} vs {c.other} {c.passes}/{c.n} vs {c.otherPasses}/{c.otherN}, {TITLES[test]} "
                   f"p = {small_p(c.pValue, look.boundary)} {sign} threshold {boundary_text(look.boundary)}")
    return "; ".join(out)


def _statement(stage: str, design: SequentialDesign, done: list[SequentialLook], outcome: SequentialOutcome) -> str:
    head = (f"{stage} ran as a sequential design (looks at {', '.join(map(str, design.looks))} repeats, "
            f"{_SPENDING_NAMES[design.spending]} spending of α = {design.alpha:g}, {TITLES[design.test]}'s test"
            + ("" if design.size is None else f", {size_text(design.size, design.together, design.calibration)}")
            + ")")
    if outcome == "stopped":
        last = done[-1]
        saved = design.looks[-1] - last.repeats
        return (f"{head} and stopped at look {last.look} ({_n_text(last)}): {_tests(last, design.test)}; the {saved} "
                "later repeat(s) per group were not needed and did not run.")
    if outcome == "fixed":
        last = done[-1]
        return (f"{head}; no look crossed every boundary, so it ran as a fixed design to the last look "
                f"({_n_text(last)}): at look {last.look} {_tests(last, design.test)}.")
    if not done:
        return f"{head}; the run ended before its first look was complete: no look was evaluated."
    last = done[-1]
    return (f"{head}; the run ended after look {last.look} ({_n_text(last)}), before a stop or the last look: "
            f"{_tests(last, design.test)}.")


def sequential_finding(result: SequentialResult, outcomes: Mapping[str, Mapping[str, StageStatus]],
                       one_sample: Sequence[str] = ()) -> Finding:
    """The finding that quotes where a sequential stage stopped (or that it ran as a fixed design).
    ``one_sample``: ``A 1 distinct of 8`` for each compared group whose repeats up to the last look were not
    sampled draws and gave fewer distinct answers than trials: a crossing on them shows nothing."""
    last = result.looks[-1] if result.looks else None
    apart = not one_sample
    rests = [PairEvidence(stage=result.stage, group=c.group, passes=c.passes, n=c.n, other=c.other,
                          otherPasses=c.otherPasses, otherN=c.otherN, pValue=c.pValue, test=result.design.test,
                          separable=c.crossed and apart)
             for c in (last.comparisons if last else []) if c.pValue is not None]
    statement = result.statement
    if one_sample and result.outcome == "stopped":
        statement += (f" But identical repeats are one sample repeated ({', '.join(one_sample)}, not sampled above "
                      "temperature 0): the crossing rests on one sample per group, so it shows no difference.")
    if result.outcome == "stopped":
        d = result.design
        size = "α" if d.size is None else f"the design's {size_text(d.size, d.together, d.calibration)}"
        limits = (f"Each look tests at its threshold, not at α, so over all looks the chance of a stop without a real "
                  f"difference is at most {size}; the pass rates are from the trials run up to the stop, fewer than "
                  "planned, and only the listed comparisons decided it.")
    elif result.outcome == "fixed":
        limits = ("That no look crossed every boundary does not show the groups alike: at these n the listed "
                  "differences were not large enough to stop early; the comparisons at the last look are read as a "
                  "fixed design's.")
    else:
        limits = "The looks the run did not reach say nothing; resume the run to finish the stage."
    basis = {g: {result.stage: s[result.stage]} for g, s in outcomes.items() if result.stage in s}
    return Finding(rule=f"sequential-{result.outcome}", statement=statement, doesNotShow=limits, basis=basis,
                   sentinelReproduced=None, sentinelStatement="", restsOn=rests,
                   shown=apart if result.outcome == "stopped" else None)
