"""report.json ``sequential`` (O-2): every sequential stage's design, looks and stop, from the trial records.

One function reads a stage's looks from the deciding attempt of each repeat of the groups that entered
it (``harness.analysis.evaluate_sequential`` does the statistics): the runner asks it after each look
whether to stop, report.json states it, and a rescore states it again from the re-judged trials, so
the three never disagree. A look counts only when every entered group has a trial for each of its
repeats that ran (a skipped one, from a stop, leaves the look and the ones after it unevaluated).
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.analysis import Counts, SequentialResult, evaluate_sequential
from harness.plan import Plan, StageSpec, sequential_pairs

from ._records import TrialRecord
from ._run_view import RunView


def _counts_at(finals: Mapping[str, Mapping[int, TrialRecord]], repeats: int) -> dict[str, Counts] | None:
    out: dict[str, Counts] = {}
    for group, by_repeat in finals.items():
        upto = [by_repeat.get(r) for r in range(1, repeats + 1)]
        if any(t is None or t.status == "skipped" for t in upto):
            return None
        verdicts = [t for t in upto if t is not None and t.status in ("passed", "failed")]
        out[group] = (sum(t.status == "passed" for t in verdicts), len(verdicts))
    return out


def sequential_result(plan: Plan, stage: StageSpec,
                      finals: Mapping[str, Mapping[int, TrialRecord]]) -> SequentialResult:
    """The looks of a sequential ``stage`` from ``finals``: entered group → repeat → its deciding attempt."""
    spec = stage.sequential
    assert spec is not None, f"stage {stage.id} is not sequential"
    return evaluate_sequential(stage.id, spec.looks, spec.spending, plan.analysis.alpha, sequential_pairs(plan, stage),
                               lambda repeats: _counts_at(finals, repeats), plan.analysis.test)


def sequential_results(exp: RunView) -> list[SequentialResult]:
    """One result per sequential stage that some selected group entered, in plan order."""
    out = []
    for stage in exp.plan.stages:
        if stage.sequential is None:
            continue
        entered = [g.id for g in exp.selected_groups()
                   if exp.outcomes.get((g.id, stage.id)) not in (None, "not_reached")]
        if entered:
            out.append(sequential_result(exp.plan, stage, {g: exp.decided(g, stage.id) for g in entered}))
    return out
