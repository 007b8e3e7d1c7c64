"""What a rescore (``_rescore``) says, and which of the recording's statements it keeps.

A rescored report states the recording's facts in today's words. Facts stay as recorded: the answers,
calls, tokens, costs, budget, overrides, the preflight's entries (what each group's first request was
found to be before any call, and whether it was sent), the difference panel's compared requests, the
infrastructure counts, the price table and the stop's detail. Every sentence about them is derived again
by today's code: the preflight caveats (from the recorded entries), the price caveats (from the recorded
price table), the override caveat (from the recorded overrides), the unattributed-calls caveat (from the
recorded spending and trials) and the difference panel's sentences (``results._differences.restate``).
Two kinds of caveat are kept as recorded because they state what the run's calls left out, which
today's validation of the model might decide otherwise: the sampling values a thinking Claude model
refuses and those litellm refuses or leaves out (each call's sampling records what was sent); and a
price caveat of a report written before the price table kept its source (it cannot be derived again).

The analysis (X-41): the test of the p-values, and the family of comparisons held at α together with
its method, each as asked, as the rescoring plan sets it, else as recorded; the first caveat says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from harness.models import Prices
from harness.plan import Plan
from harness.plan._analysis_spec import FamilyName
from harness.results import Report
from harness.results._caveats import THINKING_CAVEAT
from harness.runner._prices import PriceEntry, PriceSource, PriceTable
from harness.stats import METHOD_TITLES, TITLES, FamilyMethod, TestName

FAMILIES: tuple[FamilyName, ...] = get_args(FamilyName)
"""The values of ``analysis.family`` (``--family``)."""

Source = Literal["asked", "plan", "recorded"]

_KEPT = (THINKING_CAVEAT, "the maintainer's temperature ")
"""How the caveats on values the run's calls did not send begin (kept as recorded)."""


@dataclass(frozen=True)
class Analysis:
    """The rescored report's test and family, and where each came from."""

    test: TestName
    recorded_test: TestName
    family: FamilyName
    method: FamilyMethod
    family_source: Source
    """Where the family came from."""
    source: Source
    """Where the family or its method came from, the first of asked, plan, recorded."""
    family_recorded: bool
    """False: the report re-scored was written before the family existed (each comparison at α alone)."""

    def plan(self, plan: Plan) -> Plan:
        """``plan`` with this test and family (``analysis.test``, ``family``, ``familyMethod``)."""
        analysis = plan.analysis.model_copy(update={"test": self.test, "family": self.family,
                                                    "familyMethod": self.method})
        return plan.model_copy(update={"analysis": analysis})


def _chosen(name: str, asked: Any, given: Plan | None, recorded: Any) -> tuple[Any, Source]:
    if asked is not None:
        return asked, "asked"
    if given is not None and name in given.analysis.model_fields_set:
        return getattr(given.analysis, name), "plan"
    return recorded, "recorded"


def choose_analysis(given: Plan | None, recorded_plan: Plan, recorded_test: TestName, test: TestName | None,
                    family: FamilyName | None, method: FamilyMethod | None) -> Analysis:
    """The test and family of the new p-values. ``given``: the ``--plan`` (None: the recorded plan's is used);
    ``recorded_plan``: the plan the run ran, whose family is the recorded one (a plan written before the
    family existed gets the default, ``findings``)."""
    used_test, _ = _chosen("test", test, given, recorded_test)
    fam, source = _chosen("family", family, given, recorded_plan.analysis.family)
    how, how_source = _chosen("familyMethod", method, given, recorded_plan.analysis.familyMethod)
    either: Source = next(s for s in ("asked", "plan", "recorded") if s in (source, how_source))
    return Analysis(test=used_test, recorded_test=recorded_test, family=fam, method=how, family_source=source,
                    source=either, family_recorded="family" in recorded_plan.analysis.model_fields_set)


def head_caveat(run_dir: Path, recorded_sha: Any, sha: str, analysis: Analysis, alpha: float) -> str:
    """The rescored report's first caveat: what was re-scored, with which plan, test, family and method."""
    used, before = analysis.test, analysis.recorded_test
    text = (f"Re-scored from the trials recorded in {run_dir} (plan sha256 {recorded_sha}) with plan sha256 "
            f"{sha}, without any model call: checks, verdicts, failure modes and findings are this plan's; "
            "answers, tool calls, tokens, costs and the budget are the recording's, every statement about them "
            f"is today's. The p-values are {TITLES[used]}'s test, "
            + ("as in the report re-scored." if used == before else
               f"as asked (the report re-scored used {TITLES[before]}'s)."))
    where = {"asked": "--family none", "plan": "the plan's analysis.family is none",
             "recorded": "the recorded plan's analysis.family is none"}[analysis.family_source]
    if analysis.family == "none":
        return f"{text} Each comparison is judged at α = {alpha:g} on its own, not adjusted for multiple " \
               f"comparisons: {where}."
    why = {"asked": "as asked", "plan": "as the plan sets it",
           "recorded": "as in the report re-scored" if analysis.family_recorded else
           "the plan's default: the report re-scored was written before the family existed and judged each "
           "comparison at α on its own"}[analysis.source]
    return (f"{text} Every comparison the findings rules can claim is held at α = {alpha:g} together (family "
            f"findings, {METHOD_TITLES[analysis.method]}: familyMethod {analysis.method}), {why}.")


def recorded_prices(report: Report) -> PriceTable:
    """The recorded price table, for today's price caveats; a model whose price kept no source (a report
    written before) is left out, and its recorded caveat is kept (``kept_caveats``)."""
    sources: tuple[str, ...] = get_args(PriceSource)
    entries = {}
    for model, price in report.model.prices.items():
        if price.source not in sources:
            continue
        known = None if not price.known else Prices(input_per_mtok=price.inputPerMTok or 0.0,
                                                   output_per_mtok=price.outputPerMTok or 0.0,
                                                   cached_input_per_mtok=price.cachedInputPerMTok)
        entries[model] = PriceEntry(prices=known, source=price.source, gateway=price.gateway)  # type: ignore[arg-type]
    return PriceTable(entries)


def kept_caveats(report: Report, prices: PriceTable) -> list[str]:
    """The recorded caveats the rescored report keeps as they were (see the module docstring)."""
    unpriced = [m for m in report.model.prices if m not in prices.entries]
    return [c for c in report.caveats
            if c.startswith(_KEPT) or any(c.startswith(f"price of {m}:") for m in unpriced)]


def today(caveat: str) -> bool:
    """Is a caveat the report builder derived one the rescored report takes (not one kept as recorded)?"""
    return not caveat.startswith(_KEPT)
