"""A sweep's family (X-40, X-41): the same comparisons on every model, held at α together, and each model's
findings restated with the sweep's adjusted p-values.

Each model's report is a report of its own, adjusted for its own family. A sweep makes its claims across
models at once, so its family is every model's (``_family``): the chance of any false claim of difference in
the sweep is at most α. Each model's placement findings are derived again from its counts with the sweep's
adjusted p (their rule, shown or not, and what they rest on can differ from the model's own report); its
sequential findings (decided by the stage's own calibrated thresholds) are kept as recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.plan import FindingsSpec
from harness.stats import FamilyMethod, TestName

from ._family import CountsByGroup, FamilyName, FamilyResult, families
from ._findings import derive_findings
from ._models import Finding, StageStatus
from ._rate_findings import derive_rate_findings
from ._sweep_findings import ModelOutcomes

DECIDED = ("passed", "failed")


def _counts(outcomes: ModelOutcomes) -> dict[str, dict[str, tuple[int, int]]]:
    return {g: {s: (o.passes, o.n) for s, o in per.items()} for g, per in outcomes.items()}


def _samples(outcomes: ModelOutcomes) -> dict[str, dict[str, tuple[int, int]]] | None:
    """The distinct answers behind the counts, when the model's repeats were one sample repeated; else None."""
    if not any(o.samples is not None for per in outcomes.values() for o in per.values()):
        return None
    return {g: {s: o.samples if o.samples is not None else (o.passes, o.n) for s, o in per.items()}
            for g, per in outcomes.items()}


def sweep_family(spec: FindingsSpec, per_model: Mapping[str, ModelOutcomes], alpha: float, test: TestName,
                 name: FamilyName = "findings", method: FamilyMethod = "exact") -> tuple[FamilyResult, FamilyResult]:
    """(the sweep's family deciding each comparison, the same on the counts as if every repeat were a draw)."""
    counts: dict[str | None, CountsByGroup] = {m: _counts(o) for m, o in per_model.items()}
    samples: dict[str | None, CountsByGroup | None] = {m: _samples(o) for m, o in per_model.items()}
    return families(spec, counts, alpha, test, name, method, samples)


def model_findings(spec: FindingsSpec, model: str, outcomes: ModelOutcomes,
                   families: tuple[FamilyResult, FamilyResult], alpha: float, test: TestName,
                   kept: Sequence[Finding] = ()) -> list[Finding]:
    """``model``'s placement findings on its own counts, judged with the sweep's adjusted p, then ``kept`` (its
    report's sequential findings)."""
    statuses: dict[str, dict[str, StageStatus]] = {g: {s: o.status for s, o in per.items()}
                                                   for g, per in outcomes.items()}
    counts, samples = _counts(outcomes), _samples(outcomes)
    family, as_counts = families[0].view(model), families[1].view(model)
    if spec.rules == "placement-rates":
        found = derive_rate_findings(spec, counts, statuses, model_kind="real", maintenance_ran=True, alpha=alpha,
                                     test=test, samples=samples, family=family)
    else:
        found = derive_findings(spec, statuses, counts=counts, maintenance_ran=True, model_kind="real",
                                samples=samples, alpha=alpha, test=test, family=family, as_counts=as_counts)
    return [*found.findings, *(f for f in kept if f.rule.startswith("sequential-"))]
