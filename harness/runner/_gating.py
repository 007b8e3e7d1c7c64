"""Stage gating (X-10 … X-13): who enters a stage, and what a group's trials make of it.

- A group enters a stage when the stage lists it and it passed every stage of ``requires`` it
  takes part in; a baseline enters only the stages naming it (``Plan.participants``).
- A group passes a stage when all its trials pass (pass^k, k = repeats). An ``error`` trial is
  retried as a new trial up to ``infraRetries`` times (not an error a retry would repeat:
  ``unsupported_input``, ``provider_rejected``); one that still errors makes the stage
  ``inconclusive``: the group does not advance, and no model failure is counted.
- A trial or retry the runner never started (a stop, fail-fast) is ``skipped`` (X-11), and so is
  the stage it leaves undecided: an error whose retry a stop prevented makes the stage ``skipped``,
  not ``inconclusive`` (its retries were not used up), whatever the timing of the stop.
- With ``failFast`` the first failed trial skips the group's remaining trials of the stage.
- A sequential stage that stopped at a look is complete there: its status comes from the repeats up to
  that look (``ran_to``), and the repeats it did not need are neither run nor skipped.
"""

from __future__ import annotations

from harness.plan import Plan, StageSpec, StageStatus
from harness.results import ERROR_CLASS_KINDS, NOT_RETRIED_KINDS
from harness.results._records import TrialRecord

__all__ = ["StageStatus", "entry_blocker", "final_attempts", "needs_retry", "ran_to", "stage_status", "takes_part"]


def takes_part(plan: Plan, group_id: str, stage: StageSpec) -> bool:
    return any(g.id == group_id for g in plan.participants(stage))


def entry_blocker(
    plan: Plan, group_id: str, stage: StageSpec, outcomes: dict[tuple[str, str], StageStatus]
) -> str | None:
    """None when the group may enter ``stage``; else the required stage it did not pass."""
    for required in plan.required_stages(group_id, stage):
        if outcomes.get((group_id, required)) != "passed":
            return required
    return None


def final_attempts(records: list[TrialRecord]) -> dict[int, TrialRecord]:
    """The last attempt of each repeat (the one that decides it)."""
    out: dict[int, TrialRecord] = {}
    for record in sorted(records, key=lambda r: (r.repeat, r.attempt)):
        out[record.repeat] = record
    return out


NOT_RETRIED = NOT_RETRIED_KINDS
"""Run errors that a new trial would only repeat: a scripted model that cannot read the input reads
the same input the same way, a provider that refused a request (4xx) refuses it again (one owner:
``harness.results.NOT_RETRIED_KINDS``, in the kinds of ``INFRA_KINDS``; the reports' retry sentence
reads it too)."""


def needs_retry(record: TrialRecord, infra_retries: int, first: int = 0) -> bool:
    """An ``error`` gets ``infra_retries`` more attempts (none for an error in ``NOT_RETRIED``);
    ``first``: this process's first attempt (a resume runs an errored repeat again, with the plan's
    retries)."""
    if record.status != "error" or record.attempt - first >= infra_retries:
        return False
    last = record.runs[-1] if record.runs else None
    return last is None or ERROR_CLASS_KINDS.get(str(last.error_class), str(last.error_class)) not in NOT_RETRIED


def earlier_attempts(records: list[TrialRecord]) -> dict[tuple[str, str, int], list[TrialRecord]]:
    """(group, stage, repeat) → the attempts earlier processes recorded, in attempt order, without
    the placeholders (``skipped`` records of trials never started): those are decided again."""
    out: dict[tuple[str, str, int], list[TrialRecord]] = {}
    for r in sorted(records, key=lambda r: r.attempt):
        if r.sessionId is not None:
            out.setdefault((r.group, r.stage, r.repeat), []).append(r)
    return out


def next_attempt(earlier: list[TrialRecord]) -> int:
    """The attempt number after every attempt that ran: an id that ran (and wrote its transcript)
    is never reused; a placeholder's is."""
    return max((r.attempt for r in earlier), default=-1) + 1


def stage_status(records: list[TrialRecord], repeats: int) -> StageStatus:
    """The group's outcome of one stage from its trials (all attempts)."""
    final = final_attempts(records)
    statuses = [r.status for r in final.values()]
    if "failed" in statuses:
        return "failed"
    if "error" in statuses:
        return "inconclusive"
    if len(final) < repeats or "skipped" in statuses:
        return "skipped"
    return "passed"


def ran_to(stage: StageSpec, records: list[TrialRecord]) -> int:
    """The repeats per group a stage ran to, from its recorded trials (any group): its repeats, or for a
    sequential stage that stopped early the look at which its trials end."""
    if stage.sequential is None:
        return stage.repeats
    last = max((r.repeat for r in records if r.stage == stage.id), default=stage.repeats)
    return next((look for look in stage.sequential.looks if look >= last), stage.repeats)
