"""Passes whose answer has a failure's shape (a text tool call, a derived tag line): the answer check
found its number, the report says the pass is not a well-formed answer. Seen on the local probe, where
B's one pass was ``[context_window_complete] The window's result … {"result": "12000 - 4350 = 7650"}``."""

from __future__ import annotations

from harness.results import GroupReport, RunReport, StageReport, TrialReport
from harness.results._caveats import pass_shape_caveats
from harness.results._models import ProtocolInfo


def _trial(repeat: int, status: str, shape: str | None = None) -> TrialReport:
    runs = [RunReport(runId="r1", turn=1, input="q", finalAnswer="7650", status="completed", steps=1)]
    return TrialReport(id=f"B/simple/{repeat}", repeat=repeat, status=status, runs=runs,  # type: ignore[arg-type]
                       passShape=shape)


def _group(*trials: TrialReport) -> GroupReport:
    stage = StageReport.summarise("simple", "failed", list(trials))
    return GroupReport(id="B", label="B", role="treatment", protocol=ProtocolInfo(id="unified", version=3, options={}),
                       stages=[stage])


def test_shaped_passes_are_named_with_their_count_and_mode() -> None:
    group = _group(_trial(1, "passed", "state_echo: turn 1: reproduces the description of tool x: '[x] 7650'"),
                   _trial(2, "passed"), _trial(3, "failed"))
    [caveat] = pass_shape_caveats([group])
    assert caveat.startswith("Passed trials whose answer has a failure's shape: B/simple 1 of 2 (state_echo).")
    assert "not as well-formed answers" in caveat


def test_clean_passes_give_no_caveat() -> None:
    assert pass_shape_caveats([_group(_trial(1, "passed"), _trial(2, "failed"))]) == []
