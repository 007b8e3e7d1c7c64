"""Infrastructure visible (issue 13): failed call attempts by kind, retries, calls that gave up and
error trials per group, from the calls' recorded attempts (the whole-plan run over a faulty server
is in test_http_faults)."""

from __future__ import annotations

from harness.models import infra_kind
from harness.rendering._workflow import console_lines, infrastructure
from harness.results import TrialRecord
from harness.results._infra import attempt_kinds, group_infrastructure
from harness.results._records import CallMetric


def _call(seq: int, kinds: list[str], status: str = "ok", retries: int | None = None) -> CallMetric:
    return CallMetric(seq=seq, runId="r", role="agent", model="m", status=status, requestSha256="h",
                      snapshotId=f"s{seq}", failedAttempts=kinds, retries=len(kinds) if retries is None else retries)


def _trial(n: int, status: str, calls: list[CallMetric], attempt: int = 0) -> TrialRecord:
    return TrialRecord(id=f"A/simple/{n}", group="A", stage="simple", repeat=n, status=status,  # type: ignore[arg-type]
                       calls=calls, attempt=attempt)


def test_attempt_kinds_come_from_the_recorded_retries_and_the_final_error() -> None:
    retries = [{"error_class": "RateLimitError", "status_code": 429, "message": "rate limit reached"},
               {"error_class": "Timeout", "status_code": 408, "message": "Request timed out."},
               {"error_class": "InternalServerError", "status_code": 500, "message": "OpenAIException - Connection "
                                                                                     "error."}]
    assert attempt_kinds(retries, None) == ["rate_limit", "timeout", "connection"]
    # ended without any attempt record: a missing key, a context window too small
    assert attempt_kinds([], {"kind": "infrastructure", "message": "environment variable X is not set"}) == ["other"]
    assert attempt_kinds([], {"kind": "context_window", "message": "too long"}) == ["context_window"]
    # a scripted model that cannot read the plan's input: a set-up error of its own kind, not "other"
    assert attempt_kinds([], {"kind": "unsupported_input", "message": "scripted/oracle cannot read its input"}) == [
        "unsupported_input"]
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
    assert lines[0] == ("infrastructure: 6 failed call attempts (5 retried), 1 call gave up, 1 error trial. Which "
                        "error trials were retried is not recorded in this report. None of it counts as a model "
                        "failure: no error trial is in any pass rate.")  # a report from before retriedTrials
    assert lines[1:] == ["  A: 40 calls, 6 failed attempts (rate limit (429) 3, timeout 2, malformed response 1), "
                         "5 retried, 1 gave up (timeout 1), 1 error trial"]
    quiet = {"infrastructure": [{"group": "B", "calls": 3}]}
    assert console_lines(quiet) == ["infrastructure: No model call attempt failed: no retries, no infrastructure "
                                    "errors."]
    assert infrastructure({})["known"] is False  # a report from before: says so instead of claiming zero


def test_set_up_errors_have_their_own_kind_and_error_trials_say_whether_they_were_retried() -> None:
    """unsupported_input was counted as "other", and every summary said error trials "are retried as new
    trials", which is false for set-up errors (never retried) and when the plan allows no retry."""
    set_up = _call(1, ["unsupported_input"], status="unsupported_input", retries=0)
    old = _call(1, ["other"], status="unsupported_input", retries=0)  # recorded before the kind existed
    records = [_trial(1, "error", [set_up]), _trial(2, "error", [old]),
               _trial(3, "error", [_call(1, ["timeout"], status="infrastructure", retries=0)]),
               _trial(3, "passed", [_call(1, [])], attempt=1)]  # repeat 3 retried once, then passed
    g = group_infrastructure("A", records)
    assert g.failedAttempts == {"unsupported_input": 2, "timeout": 1}
    assert (g.errorTrials, g.errorKinds, g.retriedTrials) == (3, {"unsupported_input": 2, "timeout": 1}, 1)
    entry = g.model_dump(mode="json")
    text = infrastructure({"infrastructure": [entry], "infraRetries": 1})["total"]
    assert ("3 error trials. 1 of the 3 error trials was retried as a new trial; 2 are set-up errors (the scripted "
            "model cannot read this input), never retried: a new trial would read it the same way.") in text
    assert "set-up: the scripted model cannot read this input 2" in console_lines(
        {"infrastructure": [entry], "infraRetries": 1})[1]
    no_retry = {**entry, "errorTrials": 1, "errorKinds": {"timeout": 1}, "retriedTrials": 0}
    text = infrastructure({"infrastructure": [no_retry], "infraRetries": 0})["total"]
    assert "No error trial was retried as a new trial; 1 not retried: the plan allows no retry " \
           "(stop.infraRetries = 0)." in text
    used_up = {**entry, "errorTrials": 2, "errorKinds": {"timeout": 2}, "retriedTrials": 1}
    text = infrastructure({"infrastructure": [used_up], "infraRetries": 1})["total"]
    assert "1 of the 2 error trials was retried as a new trial; 1 not retried: a repeat gets at most 1 new trial " \
           "(stop.infraRetries), or the run stopped before the retry." in text
    assert "are retried as new trials" not in text


def test_retried_error_trials_are_counted_in_words_that_agree_with_the_numbers() -> None:
    """The tester read "1 of the 1 error trial was retried as new trials": one trial, all of it retried."""
    entry = group_infrastructure("A", [_trial(1, "error", [_call(1, ["timeout"], status="infrastructure",
                                                                 retries=0)]),
                                       _trial(1, "passed", [_call(1, [])], attempt=1)]).model_dump(mode="json")
    text = infrastructure({"infrastructure": [entry], "infraRetries": 1})["total"]
    assert "The 1 error trial was retried as a new trial." in text
    assert "1 of the 1" not in text and "new trials" not in text
    both = {**entry, "errorTrials": 2, "errorKinds": {"timeout": 2}, "retriedTrials": 2}
    assert "The 2 error trials were retried as new trials." in infrastructure(
        {"infrastructure": [both], "infraRetries": 1})["total"]
    lines = console_lines({"infrastructure": [{**entry, "failedAttempts": {"timeout": 1}}], "infraRetries": 1})
    assert not any("retried as new trials" in line for line in lines)


def test_a_rejected_request_is_never_retried_as_a_new_trial() -> None:
    """A provider's 4xx (provider_rejected) is deterministic: a new trial would send the same request."""
    from harness.engine import RunResult
    from harness.runner._gating import needs_retry

    def ended_by(error_class: str) -> TrialRecord:
        run = RunResult(session_id="s", run_id="r", input="?", final_answer=None, status="error",
                        error_class=error_class, error="400", steps=1)
        return TrialRecord(id="A/simple/1", group="A", stage="simple", repeat=1, status="error", runs=[run])

    assert not needs_retry(ended_by("provider_rejected"), infra_retries=2)
    assert not needs_retry(ended_by("unsupported_input"), infra_retries=2)
    assert needs_retry(ended_by("infrastructure"), infra_retries=2)
    rejected = _call(1, ["rejected"], status="provider_rejected", retries=0)
    entry = group_infrastructure("A", [_trial(1, "error", [rejected])]).model_dump(mode="json")
    assert entry["errorKinds"] == {"rejected": 1} and entry["retriedTrials"] == 0
    text = infrastructure({"infrastructure": [entry], "infraRetries": 1})["total"]
    assert ("No error trial was retried as a new trial; 1 ended with a request the provider rejected (4xx, or a chat "
            "template's error), never retried: a new trial would send the same request.") in text
