"""Infrastructure trouble per group: failed attempts by kind, retries, calls that gave up
and error trials, from the trial records, for report.json's ``infrastructure`` and the summaries.

None of it is a model failure (X-31) and no error trial is in a pass rate. An errored repeat gets a
new trial up to the plan's ``stop.infraRetries`` times, except a set-up error (``unsupported_input``:
a scripted model that cannot read the input) and a request the provider refused (``rejected``, 4xx),
which a new trial would only repeat; ``retriedTrials``
counts the error trials that actually got one. This is what makes a run's cost and time explainable."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.models import infra_kind

from ._records import TrialRecord
from ._workflow import ERROR_CLASS_KINDS, GroupInfrastructure


def attempt_kinds(retries: Any, error: Any) -> list[str]:
    """The kind of each failed attempt of one call, from its snapshot's ``retries`` and ``error``; none for
    a call the run did not send (an identical request had been refused)."""
    if isinstance(error, dict) and error.get("sent") is False:
        return []
    kinds = [infra_kind(r.get("error_class"), r.get("status_code"), r.get("message"))
             for r in retries if isinstance(r, dict)] if isinstance(retries, list) else []
    if isinstance(error, dict) and not kinds:  # ended without an attempt record (e.g. no API key)
        kind = ERROR_CLASS_KINDS.get(str(error.get("kind")))
        status = error.get("status_code")
        kinds = [kind or infra_kind(None, status if isinstance(status, int) else None, str(error.get("message")))]
    return kinds


def _call_kinds(status: str, kinds: list[str], retries: int) -> list[str]:
    if not kinds:
        kinds = ["other"] * retries  # a record from before kinds were kept
    if status == "unsupported_input":  # kept as "other" before it had its own kind
        kinds = [*kinds[:-1], "unsupported_input"] if kinds else ["unsupported_input"]
    return kinds


def _retried(record: TrialRecord, records: list[TrialRecord]) -> bool:
    """Did a later attempt of the same repeat run (a placeholder a stop left is not a retry)?"""
    return any(r.repeat == record.repeat and r.stage == record.stage and r.attempt > record.attempt
               and r.status != "skipped" for r in records)


def group_infrastructure(group: str, records: list[TrialRecord]) -> GroupInfrastructure:
    attempts: Counter[str] = Counter()
    gave_up: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    calls = retries = retried = unsent = 0
    for record in records:
        ended_by = "other"
        for call in record.calls:
            if not call.sent:  # not a model call: the same request had been refused; the trial ends as that did
                ended_by = ERROR_CLASS_KINDS.get(call.status, "other")
                unsent += 1
                continue
            calls += 1
            kinds = _call_kinds(call.status, call.failedAttempts, call.retries)
            attempts.update(kinds)
            ended = call.status != "ok"
            if ended and kinds:
                gave_up[kinds[-1]] += 1
                ended_by = kinds[-1]
            retries += max(0, len(kinds) - (1 if ended else 0))
        if record.status == "error":
            errors[ended_by] += 1
            retried += _retried(record, records)
    return GroupInfrastructure(group=group, calls=calls, retries=retries, failedAttempts=dict(attempts),
                               failedCalls=dict(gave_up), errorTrials=sum(errors.values()), errorKinds=dict(errors),
                               notSent=unsent, retriedTrials=retried)


def infrastructure(groups: list[str], records: list[TrialRecord]) -> list[GroupInfrastructure]:
    """One entry per group, in the order given (groups without trouble have zeros)."""
    return [group_infrastructure(g, [r for r in records if r.group == g]) for g in groups]
