"""Infrastructure visible (issue 13): failed call attempts by kind, retries, calls that gave up and
error trials per group, from the calls' recorded attempts (the whole-plan run over a faulty server
is in test_http_faults)."""

from __future__ import annotations

from harness.models import infra_kind
from harness.reports._workflow import console_lines, infrastructure
from harness.runner import TrialRecord
from harness.runner._infra import attempt_kinds, group_infrastructure
from harness.runner._records import CallMetric


def _call(seq: int, kinds: list[str], status: str = "ok", retries: int | None = None) -> CallMetric:
    return CallMetric(seq=seq, runId="r", role="agent", model="m", status=status, requestSha256="h",
                      snapshotId=f"s{seq}", failedAttempts=kinds, retries=len(kinds) if retries is None else retries)


def _trial(n: int, status: str, calls: list[CallMetric]) -> TrialRecord:
    return TrialRecord(id=f"A/simple/{n}", group="A", stage="simple", repeat=n, status=status,  # type: ignore[arg-type]
                       calls=calls)


def test_attempt_kinds_come_from_the_recorded_retries_and_the_final_error() -> None:
    retries = [{"error_class": "RateLimitError", "status_code": 429, "message": "rate limit reached"},
               {"error_class": "Timeout", "status_code": 408, "message": "Request timed out."},
               {"error_class": "InternalServerError", "status_code": 500, "message": "OpenAIException - Connection "
                                                                                     "error."}]
    assert attempt_kinds(retries, None) == ["rate_limit", "timeout", "connection"]
    # ended without any attempt record: a missing key, a context window too small
    assert attempt_kinds([], {"kind": "infrastructure", "message": "environment variable X is not set"}) == ["other"]
    assert attempt_kinds([], {"kind": "context_window", "message": "too long"}) == ["context_window"]
    assert infra_kind("ServiceUnavailableError", 503, "overloaded") == "server_error"
    assert infra_kind("BadRequestError", 400, "must end with a user message") == "rejected"
    assert infra_kind("APIError", None, "Expecting value: line 1 column 1 (char 0)") == "malformed"


def test_group_counts_failed_attempts_retries_calls_that_gave_up_and_error_trials() -> None:
    records = [
        _trial(1, "passed", [_call(1, ["rate_limit", "rate_limit"]), _call(2, [])]),  # two retries, then success
        _trial(2, "error", [_call(1, ["server_error", "timeout", "timeout"], status="infrastructure")]),  # gave up
        _trial(3, "passed", [_call(1, [], retries=1)]),  # recorded before kinds were kept: counted as other
    ]
    g = group_infrastructure("A", records)
    assert (g.calls, g.retries, g.errorTrials) == (4, 5, 1)
    assert g.failedAttempts == {"rate_limit": 2, "server_error": 1, "timeout": 2, "other": 1}
    assert g.failedCalls == {"timeout": 1}  # the call gave up on its last attempt's kind


def test_the_summary_names_kinds_per_group_in_words() -> None:
    report = {"infrastructure": [
        {"group": "A", "calls": 40, "retries": 5, "failedAttempts": {"timeout": 2, "rate_limit": 3, "malformed": 1},
         "failedCalls": {"timeout": 1}, "errorTrials": 1},
        {"group": "B", "calls": 38, "retries": 0, "failedAttempts": {}, "failedCalls": {}, "errorTrials": 0}]}
    lines = console_lines(report)
    assert lines[0] == ("infrastructure: 6 failed call attempts (5 retried), 1 call gave up, 1 error trial. None of "
                        "it counts as a model failure: error trials are retried as new trials and are not in any "
                        "pass rate.")
    assert lines[1:] == ["  A: 40 calls, 6 failed attempts (rate limit (429) 3, timeout 2, malformed response 1), "
                         "5 retried, 1 gave up (timeout 1), 1 error trial"]
    quiet = {"infrastructure": [{"group": "B", "calls": 3}]}
    assert console_lines(quiet) == ["infrastructure: No model call attempt failed: no retries, no infrastructure "
                                    "errors."]
    assert infrastructure({})["known"] is False  # a report from before: says so instead of claiming zero
