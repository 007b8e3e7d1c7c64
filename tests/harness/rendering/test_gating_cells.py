"""The stage gating table's cells (O-20): skipped repeats are counted and explained, and pass^k appears only
where the findings rules read it."""

from __future__ import annotations

from harness.rendering._context import gating, skipped_text


def _trial(repeat: int, status: str, attempt: int = 0, error: str | None = None) -> dict[str, object]:
    return {"repeat": repeat, "attempt": attempt, "status": status, "error": error}


FAIL_FAST = "fail_fast: an earlier trial of this stage failed"


def test_a_repeat_skipped_by_fail_fast_says_so_with_the_failures_before_it() -> None:
    stage = {"trials": [_trial(1, "failed"), _trial(2, "failed"), _trial(3, "skipped", error=FAIL_FAST)]}
    assert skipped_text(stage) == "1 repeat skipped: fail-fast after 2 failures"


def test_a_skip_a_resume_ran_again_is_not_counted_and_stops_are_named() -> None:
    stage = {"trials": [_trial(1, "passed"), _trial(2, "skipped", error="stopped: budget_exhausted:totalTokens"),
                        _trial(2, "passed", attempt=1), _trial(3, "skipped", error="stopped: wall_clock")]}
    assert skipped_text(stage) == "1 repeat skipped: the run stopped (wall_clock)"
    assert skipped_text({"trials": [_trial(1, "passed")]}) == ""


def _report(rule: str) -> dict[str, object]:
    stage = {"id": "simple", "status": "failed", "passRate": {"passes": 0, "n": 2, "wilson95": [0.0, 0.66]},
             "passHatK": {"1": 0.0, "2": 0.0},
             "trials": [_trial(1, "failed"), _trial(2, "failed"), _trial(3, "skipped", error=FAIL_FAST)]}
    return {"groups": [{"id": "A", "term": "placement control", "protocol": {"id": "unified", "version": 3},
                        "stages": [stage]}], "findings": [{"rule": f"{rule}/x"}]}


def test_pass_k_only_where_the_findings_rules_use_it() -> None:
    (cell,) = gating(_report("placement-v3"))["rows"][0]["cells"]
    assert cell["passHatK"] == "k=1: 0.00, k=2: 0.00" and cell["skipped"].startswith("1 repeat skipped")
    rates = gating(_report("placement-rates"))["rows"][0]
    assert rates["cells"][0]["passHatK"] == "" and rates["role"] == "placement control"
