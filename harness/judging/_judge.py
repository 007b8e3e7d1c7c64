"""A trial's verdict (X-11, 03-experiments.md's check table): its checks, passed or failed, and the
failure mode of a failed trial or the failure's shape behind a pass.

The one place a verdict is made: the runner calls ``judge`` as a trial ends, ``harness rescore`` on
the recorded trial with another plan's checks.
"""

from __future__ import annotations

from harness.plan import StageSpec
from harness.results._records import CheckResult, TrialRecord

from ._checks import TrialView, trial_check, turn_check
from ._diagnose import diagnose, shape_of_pass


def judge(record: TrialRecord, stage: StageSpec, view: TrialView) -> None:
    """The checks, verdict and failure mode of a trial whose turns all ran, set on ``record``.

    The one place a verdict is made: the runner calls it as a trial ends, ``harness rescore``
    on the recorded trial with another plan's checks."""
    record.checks = _checks(stage, view) + _cut_checks(view)
    failed = [c for c in record.checks if c.result == "failed"]
    missing = [c for c in record.checks if c.result == "not_exercised" and c.required]
    record.status = "failed" if failed or missing else "passed"
    reasons = [f"{c.name}: {c.detail}" for c in failed] + [f"{c.name} not exercised: {c.detail}" for c in missing]
    record.reason = "; ".join(reasons) if reasons else None
    record.failureMode = record.failureDetail = record.passShape = None
    if record.status == "failed":
        diagnosis = diagnose(record, view.snapshots)
        record.failureMode, record.failureDetail = diagnosis.mode, diagnosis.detail
    elif (shape := shape_of_pass(record, view.snapshots)) is not None:
        record.passShape = f"{shape.mode}: {shape.detail}"


def _checks(stage: StageSpec, view: TrialView) -> list[CheckResult]:
    out = [turn_check(check, run, n) for n, (turn, run) in enumerate(zip(stage.turns, view.runs, strict=True), 1)
           for check in turn.checks]
    out += [trial_check(check, view) for check in stage.effective_trial_checks]
    return out


def _cut_checks(view: TrialView) -> list[CheckResult]:
    """A failed ``answer_within_output_cap`` for each turn with an answer the harness had to cut
    (``harness.models.cap_output``): the model ignored the output cap, and the evidence kept is
    not the whole answer, so the trial cannot pass on it."""
    out = []
    for n, run in enumerate(view.runs, 1):
        cut = [s for s in view.snapshots if s.get("runId") == run.run_id and (s.get("response") or {}).get("cut")]
        if cut:
            what = "; ".join(str(s["response"]["cut"]) for s in cut)
            out.append(CheckResult(
                name="answer_within_output_cap", turn=n, result="failed",
                detail=f"the model's output exceeded what the harness keeps of an answer and was cut ({what})",
                evidence=[str(s.get("id")) for s in cut]))
    return out
