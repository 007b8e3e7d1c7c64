"""A rescore with a longer per-call timeout than recorded: the same trials would have run when no recorded
call attempt timed out, so the plan is compatible; a shorter timeout, or a timeout after one, is refused."""

from __future__ import annotations

import json

from harness.plan import parse_plan
from harness.results._records import CallMetric, TrialRecord
from harness.workflows._rescore_compat import plan_differences
from tests.harness.runner._run import FIXED_PLAN


def _plan(timeout: float):  # type: ignore[no-untyped-def]
    data = json.loads(FIXED_PLAN.read_text(encoding="utf-8"))
    data["budget"]["timeoutSecondsPerCall"] = timeout
    return parse_plan(data)[0]


def _record(*kinds: str) -> TrialRecord:
    call = CallMetric(seq=1, runId="r", role="agent", model="openai/qwen", status="ok", requestSha256="0",
                      snapshotId="s1", failedAttempts=list(kinds))
    return TrialRecord(id="A/simple/1", group="A", stage="simple", repeat=1, attempt=0, status="failed", calls=[call])


def test_a_longer_timeout_is_compatible_when_no_call_timed_out() -> None:
    assert plan_differences(_plan(300), _plan(120), [_record(), _record("server_error")]) == []


def test_a_longer_timeout_after_a_timeout_or_a_shorter_one_is_a_named_difference() -> None:
    (after,) = plan_differences(_plan(300), _plan(120), [_record("timeout")])
    assert after == "$.budget.timeoutSecondsPerCall: 300.0 here, 120.0 when recorded, and 1 recorded call attempt(s) " \
                    "timed out"
    (shorter,) = plan_differences(_plan(60), _plan(120), [])
    assert shorter.startswith("$.budget.timeoutSecondsPerCall: 60.0 here, 120.0 when recorded (a shorter timeout")
