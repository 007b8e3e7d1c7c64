"""Infrastructure trouble per group (issue 13): failed attempts by kind, retries, calls that gave up
and error trials, from the trial records, for report.json's ``infrastructure`` and the summaries.

None of it is a model failure (X-31): an errored trial is retried as a new trial and never counted
in a pass rate; this is what makes a run's cost and time explainable."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.models import infra_kind
from harness.report import GroupInfrastructure

from ._records import TrialRecord

_ERROR_KINDS = {"context_window": "context_window", "provider_rejected": "rejected"}


def attempt_kinds(retries: Any, error: Any) -> list[str]:
    """The kind of each failed attempt of one call, from its snapshot's ``retries`` and ``error``."""
    kinds = [infra_kind(r.get("error_class"), r.get("status_code"), r.get("message"))
             for r in retries if isinstance(r, dict)] if isinstance(retries, list) else []
    if isinstance(error, dict) and not kinds:  # ended without an attempt record (e.g. no API key)
        kind = _ERROR_KINDS.get(str(error.get("kind")))
        status = error.get("status_code")
        kinds = [kind or infra_kind(None, status if isinstance(status, int) else None, str(error.get("message")))]
    return kinds


def group_infrastructure(group: str, records: list[TrialRecord]) -> GroupInfrastructure:
    attempts: Counter[str] = Counter()
    gave_up: Counter[str] = Counter()
    calls = retries = 0
    for record in records:
        for call in record.calls:
            calls += 1
            kinds = call.failedAttempts or ["other"] * call.retries  # a record from before kinds were kept
            attempts.update(kinds)
            ended = call.status != "ok"
            if ended and kinds:
                gave_up[kinds[-1]] += 1
            retries += max(0, len(kinds) - (1 if ended else 0))
    return GroupInfrastructure(group=group, calls=calls, retries=retries, failedAttempts=dict(attempts),
                               failedCalls=dict(gave_up), errorTrials=sum(r.status == "error" for r in records))


def infrastructure(groups: list[str], records: list[TrialRecord]) -> list[GroupInfrastructure]:
    """One entry per group, in the order given (groups without trouble have zeros)."""
    return [group_infrastructure(g, [r for r in records if r.group == g]) for g in groups]
