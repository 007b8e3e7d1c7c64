"""Stop conditions (X-30, X-31): wall clock and an unhealthy provider end the experiment early with
their reason, the report written and unfinished trials skipped, never failed."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from harness.models import Prices, make_model
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._run import plan_data, run_plan


def test_wall_clock_stops_the_experiment_X30(tmp_path: Path) -> None:
    data = plan_data()
    data["budget"]["maxWallSeconds"] = 0.5
    outcome = run_plan(tmp_path / "run", data=data, concurrency=2)
    assert outcome.status == "stopped" and outcome.stop_reason == "wall_clock"
    trials = [t for g in outcome.report.groups for s in g.stages for t in s.trials]
    assert "skipped" in {t.status for t in trials} and "failed" not in {t.status for t in trials}
    assert (outcome.run_dir / "report.json").is_file()


def test_provider_unhealthy_after_min_calls_X31(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unused")
    data = plan_data()
    data["stop"].update({"maxInfraErrorRate": 0.3, "minCallsForInfraRate": 10, "infraRetries": 0})
    no_retries = partial(make_model, max_retries=0)
    with running_server(resolve_model=get_scripted, model="oracle", fault_rate=1.0, fault_kinds=("500",)) as url:
        outcome = run_plan(tmp_path / "run", "openai/oracle", data, api_base=url, concurrency=2,
                           prices={"openai/oracle": Prices(input_per_mtok=0, output_per_mtok=0)},
                           model_factory=no_retries)
    assert outcome.stop_reason == "provider_unhealthy"
    spent = outcome.report.budget.spent
    assert 10 <= spent.llmCalls < 37  # judged only after the minimum call count, then stopped
    statuses = {s.status for g in outcome.report.groups for s in g.stages}
    assert "failed" not in statuses and statuses <= {"inconclusive", "skipped", "not_reached"}
