"""Calls the budget counted that no recorded trial holds (a kill mid-attempt: the budget log is written
per call, the trial record at the trial's end) are named in a caveat, with their tokens; cached
responses, which the budget does not count, never make it appear."""

from __future__ import annotations

from harness.results._caveats import unattributed_caveats
from harness.results._records import CallMetric, TrialRecord


def _call(seq: int, tokens: int, cached: bool = False) -> CallMetric:
    return CallMetric(seq=seq, runId="r", role="agent", model="m", inputTokens=tokens, outputTokens=10, status="ok",
                      requestSha256="x", snapshotId=f"s/{seq}", cached=cached)


def _trial(*calls: CallMetric) -> TrialRecord:
    return TrialRecord(id="A/simple/1", group="A", stage="simple", repeat=1, status="passed", calls=list(calls))


def test_calls_no_trial_holds_are_named_with_their_tokens() -> None:
    records = [_trial(_call(1, 100), _call(2, 200))]
    (text,) = unattributed_caveats(records, spent_calls=5, spent_tokens=320 + 3 * 500)
    assert text.startswith("3 model call(s) (1,500 tokens) counted as spent belong to no recorded trial")
    assert "rest on recorded trials only" in text


def test_a_budget_that_matches_the_trials_says_nothing_and_cached_responses_do_not_count() -> None:
    records = [_trial(_call(1, 100), _call(2, 200, cached=True))]
    assert unattributed_caveats(records, spent_calls=1, spent_tokens=110) == []
    assert unattributed_caveats([_trial(_call(1, 100))], spent_calls=1, spent_tokens=110) == []
