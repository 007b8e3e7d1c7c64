"""Issue 11, repeat independence: the plan's temperature, topP and seed reach every agent call, repeat r
sent seed + r - 1, recorded per call (transcripts, DuckDB) and per trial (report.json); every stage
has distinctAnswers, and a caveat names identical repeats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.models import ChatModel, ModelOutput, ModelRequest, make_model
from harness.results import RunReport, TrialReport, distinct_answers
from harness.scripted import get_scripted
from tests.harness.runner._run import plan_data, query, run_plan


class Capture:
    """A model factory whose models record every agent request they are sent."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def __call__(self, model: str, *args: Any, **kwargs: Any) -> ChatModel:
        kwargs.setdefault("scripted", get_scripted)  # as the run's default factory: alone, no test registered them
        inner, outer = make_model(model, *args, **kwargs), self

        class Captured:
            async def generate(self, request: ModelRequest) -> ModelOutput:
                outer.requests.append(request)
                return await inner.generate(request)

        return Captured()


def test_top_p_and_a_seed_per_repeat_reach_every_agent_call(tmp_path: Path) -> None:
    data = plan_data()
    data["models"]["sampling"] = {"temperature": 0.7, "topP": 0.9, "seed": 100}
    capture = Capture()
    outcome = run_plan(tmp_path / "run", data=data, groups=["A"], stages=["simple", "tool_continuation"],
                       model_factory=capture, concurrency=8)
    assert len(capture.requests) == outcome.report.budget.spent.llmCalls > 5
    assert {(r.temperature, r.top_p) for r in capture.requests} == {(0.7, 0.9)}
    assert sorted({r.seed for r in capture.requests}) == [100, 101, 102]  # simple has 3 repeats
    trials = [t for s in outcome.report.groups[0].stages for t in s.trials]
    for t in trials:
        assert t.sampling == {"temperature": 0.7, "topP": 0.9, "seed": 100 + t.repeat - 1}
        lines = [json.loads(x) for x in (outcome.run_dir / str(t.transcript)).read_text(encoding="utf-8").splitlines()]
        assert {(x["request"]["params"]["top_p"], x["request"]["params"]["seed"]) for x in lines} == {
            (0.9, 100 + t.repeat - 1)}
    rows = query(outcome.run_dir, "SELECT DISTINCT t.repeat, c.temperature, c.top_p, c.seed FROM llm_calls c "
                                  "JOIN trials t USING (trial_id) ORDER BY ALL")
    assert rows == [(1, 0.7, 0.9, 100), (2, 0.7, 0.9, 101), (3, 0.7, 0.9, 102)]
    assert outcome.report.model.sampling == {"temperature": 0.7, "topP": 0.9, "seed": 100}
    caveat = next(c for c in outcome.report.caveats if c.startswith("Identical repeats"))
    assert caveat.startswith("Identical repeats at temperature 0.7 (seed 100 + repeat - 1): A/simple 1 distinct of 3")
    # sampled repeats that agree are independent draws only if the server really sampled: said, not assumed
    assert "only if the server honoured the temperature and seed" in caveat


def _trial(repeat: int, status: str, *answers: str | None) -> TrialReport:
    runs = [RunReport(runId=f"r{n}", turn=n, input="q", finalAnswer=a, status="completed", steps=1)
            for n, a in enumerate(answers, 1)]
    return TrialReport(id=f"A/s/{repeat}", repeat=repeat, status=status, runs=runs)  # type: ignore[arg-type]


def test_distinct_answers_compare_multi_turn_trials_turn_by_turn_over_verdicts_only() -> None:
    same = [_trial(1, "passed", "6900", "10-16"), _trial(2, "failed", "6900 ", "10-16")]
    assert distinct_answers(same) == 1  # whitespace at the ends does not make an answer new
    differ = [*same, _trial(3, "passed", "6900", "10-19")]
    assert distinct_answers(differ) == 2
    assert distinct_answers([*differ, _trial(4, "error", "something else")]) == 2  # no verdict, not counted
    assert distinct_answers([]) == 0
