"""The whole fixed plan over HTTP against the scripted server with injected faults (X-64, Q-11,
X-31): it completes; faults are retried or end trials as infrastructure errors, never failures."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from harness.models import Prices, make_model
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from tests.harness.runner._run import plan_data, query, run_plan

PLANTED_KEY = "sk-planted-runner-test-key-4242424242"


def test_fixed_plan_over_http_with_faults_counts_them_as_infrastructure_Q11(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)  # litellm's openai provider wants one; the server ignores it
    data = plan_data()
    data["budget"]["timeoutSecondsPerCall"] = 1.0  # the injected timeout stalls 2 s: the client gives up first
    data["stop"]["maxInfraErrorRate"] = None  # this test is about classification, not the stop condition
    fast_retries = partial(make_model, max_retries=2, backoff_base_s=0.01, max_backoff_s=0.02)
    with running_server(
            resolve_model=get_scripted, model="oracle",
            fault_rate=0.2, seed=5, retry_after_s=0, timeout_fault_s=2) as url:
        outcome = run_plan(tmp_path / "run", "openai/oracle", data, api_base=url, concurrency=8,
                           prices={"openai/oracle": Prices(input_per_mtok=0, output_per_mtok=0)},
                           model_factory=fast_retries, render=True)
        stats = fetch_stats(url)
    assert sum(stats["faults"].values()) > 10  # faults really happened
    assert outcome.status == "completed"
    trials = [t for g in outcome.report.groups for s in g.stages for t in s.trials]
    assert not [t.id for t in trials if t.status == "failed"]  # no fault became a model failure
    for t in trials:
        if t.status == "error":
            assert t.error and t.error.startswith("infrastructure")
    statuses = {s.status for g in outcome.report.groups for s in g.stages}
    assert statuses <= {"passed", "inconclusive", "not_reached"}
    retried = query(outcome.run_dir, "SELECT sum(retries) FROM llm_calls")[0][0]
    assert retried > 0  # faults that retries absorbed are recorded per call
    # ... and visible per group and kind in report.json, report.md and report.html (issue 13)
    infra = outcome.report.infrastructure
    assert [g.group for g in infra] == [g.id for g in outcome.report.groups]
    assert sum(sum(g.failedAttempts.values()) for g in infra) == retried
    assert sum(g.errorTrials for g in infra) == len([t for t in trials if t.status == "error"])
    in_sql = dict(query(outcome.run_dir, "SELECT kind, count(*) FROM (SELECT unnest(failed_attempts) AS kind "
                                         "FROM llm_calls) GROUP BY kind"))
    assert in_sql == dict(sum((Counter(g.failedAttempts) for g in infra), Counter()))  # DuckDB says it too
    kinds = {k for g in infra for k in g.failedAttempts}
    assert kinds <= {"rate_limit", "server_error", "timeout", "connection", "malformed"} and len(kinds) >= 3, kinds
    md = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "## Infrastructure: retries and errors per group" in md and "| failed attempts | by kind |" in md
    assert "rate limit (429)" in md or "timeout" in md
    assert 'id="infrastructure"' in (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert outcome.report.model.kind == "real" and outcome.report.model.apiBase == url
    for path in (tmp_path / "run").rglob("*"):  # O-30: the key never reaches an output
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path
