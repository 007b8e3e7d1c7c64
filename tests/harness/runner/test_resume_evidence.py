"""Resume keeps evidence (issue 12): every attempt keeps its own record and transcript across a kill
and a resume; an error whose retry a stop prevented has one label whatever the timing (X-11,
X-12); a resume restores the run's settings from run.json; a stop prints the exact resume command."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import ModelCallError, ModelOutput, ModelRequest, Prices, make_model
from harness.results import TrialRecord
from harness.results._records import transcript_name
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._fork import finish, records, wait_for
from tests.harness.runner._run import plan_data, run_plan

MODEL = "openai/oracle"
FREE = {MODEL: Prices(input_per_mtok=0, output_per_mtok=0)}


def _no_infra_stop() -> dict[str, Any]:
    data = plan_data()
    data["stop"]["maxInfraErrorRate"] = None  # keep running through the faults until killed
    return data


SELECTION: dict[str, Any] = {"groups": ["A"], "stages": ["simple", "tool_continuation"]}  # 5 trials


def _faulty_run(out: str, url: str) -> None:
    """The child: group A against a server whose 1st, 3rd and 5th calls fail, no client retries."""
    try:
        run_plan(Path(out), MODEL, _no_infra_stop(), api_base=url, concurrency=1, prices=FREE,
                 model_factory=partial(make_model, max_retries=0), **SELECTION)
    finally:
        os._exit(0)


def _transcripts(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "transcripts").rglob("*.jsonl"))}


def test_kill_and_resume_after_infrastructure_errors_keeps_every_attempts_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12, must show 4. Before: the resume re-ran errored trials under the same id and attempt
    0, overwriting their transcripts, and left two attempt-0 records and a stale ``~1 skipped``."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    out = tmp_path / "run"
    with running_server(
            resolve_model=get_scripted, model="oracle",
            fault_schedule={1: "500", 3: "500", 5: "500"}, latency_ms=5) as url:
        child = multiprocessing.get_context("fork").Process(target=_faulty_run, args=(str(out), url))
        child.start()
        wait_for(lambda: any(r.status == "error" for r in records(out)) and
                 sum(r.finished for r in records(out)) >= 2, "an infrastructure error and two finished trials")
        child.kill()
        assert finish(child) == -signal.SIGKILL
        before = _transcripts(out)
        errored = [r for r in records(out) if r.status == "error"]
        assert errored and before
        # the provider is healthy again (its faults were the first calls only)
        resumed = run_plan(out, MODEL, _no_infra_stop(), resume=True, api_base=url, concurrency=2, prices=FREE,
                           **SELECTION)
    assert resumed.status == "completed"

    after = _transcripts(out)
    assert {k: after[k] for k in before} == before  # no transcript of an earlier attempt was overwritten
    started = [r for r in records(out) if r.sessionId is not None]
    assert len({r.id for r in started}) == len(started)  # one record per attempt that ran
    assert sorted(after) == sorted(transcript_name(r) for r in started)  # and one transcript each
    for r in started:
        lines = [json.loads(x) for x in (out / transcript_name(r)).read_text(encoding="utf-8").splitlines()]
        assert lines and {x["trialId"] for x in lines} == {r.id}
        assert all(x["id"].startswith(f"{r.sessionId}/") for x in lines)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    trials = {t["id"]: t for g in report["groups"] for s in g["stages"] for t in s["trials"]}
    assert {t["status"] for t in trials.values()} <= {"passed", "error"}  # no stale skipped placeholder
    for r in errored:  # each earlier error is in the report, as its own attempt, decided by a later one
        assert trials[r.id]["attempt"] == r.attempt and trials[r.id]["transcript"] == transcript_name(r)
        later = [t for t in trials.values() if t["id"].split("~")[0] == r.id.split("~")[0]
                 and t["attempt"] > r.attempt]
        assert later
    assert {s["status"] for g in report["groups"] for s in g["stages"]} == {"passed"}


class _Down:
    """A provider that fails every call: an infrastructure error, never the model's (after a few
    turns of the event loop, as a network call would, so concurrent trials overlap)."""

    async def generate(self, request: ModelRequest) -> ModelOutput:
        for _ in range(3):
            await asyncio.sleep(0)
        raise ModelCallError("infrastructure", "503 service unavailable", status_code=503)


@pytest.mark.parametrize("concurrency", [2, 4])
@pytest.mark.parametrize("retries, label", [(1, "skipped"), (0, "inconclusive")])
def test_an_error_the_stop_kept_from_its_retry_has_one_label(tmp_path: Path, concurrency: int, retries: int,
                                                             label: str) -> None:
    """Issue 12: B showed ``skipped`` and C ``inconclusive`` for the same situation. The first error
    makes the provider unhealthy; whether a group's retry was already queued when the stop came
    decided its label. Now a retry the stop prevented is recorded as skipped (X-11: never started),
    so the stage is ``skipped`` (its retries not used up); only used-up retries are ``inconclusive``
    (X-12). One repeat per group, so B's and C's trials run at once and both error."""
    data = plan_data()
    data["stop"].update({"maxInfraErrorRate": 0.01, "minCallsForInfraRate": 1, "infraRetries": retries})
    data["stages"][0]["repeats"] = 1
    outcome = run_plan(tmp_path / "run", "scripted/oracle", data, groups=["B", "C"], stages=["simple"],
                       concurrency=concurrency, model_factory=lambda *_a, **_k: _Down())
    assert outcome.stop_reason == "provider_unhealthy"
    report = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    assert {g["id"]: g["stages"][0]["status"] for g in report["groups"]} == {"B": label, "C": label}
    for group in report["groups"]:
        trials = group["stages"][0]["trials"]
        assert "error" in {t["status"] for t in trials}
        if retries:  # each errored repeat's retry is there, as never started
            for t in trials:
                if t["status"] == "error":
                    retry = next(x for x in trials if x["id"] == f"{t['id']}~1")
                    assert retry["status"] == "skipped" and retry["transcript"] is None


def test_a_resume_supersedes_placeholders_and_numbers_attempts_on(tmp_path: Path) -> None:
    """The first process: errors, their retries skipped by the stop. The resume runs each errored
    repeat as the next attempt (the placeholder's id), never as attempt 0 again."""
    data = plan_data()
    data["stop"].update({"maxInfraErrorRate": 0.01, "minCallsForInfraRate": 1, "infraRetries": 1})
    out = tmp_path / "run"
    run_plan(out, "scripted/oracle", data, groups=["B"], stages=["simple"], concurrency=1,
             model_factory=lambda *_a, **_k: _Down())
    first = records(out)
    errors = {r.id for r in first if r.status == "error"}
    assert errors and {r.attempt for r in first if r.status == "error"} == {0}
    resumed = run_plan(out, "scripted/oracle", data, resume=True, groups=["B"], stages=["simple"])
    assert resumed.status == "completed"
    current = resumed.run_dir
    kept: list[TrialRecord] = records(current)
    by_id: dict[str, Any] = {}
    for r in kept:  # the last line of an id wins: only placeholders were written twice
        if r.id in by_id:
            assert by_id[r.id].sessionId is None, f"{r.id} ran twice under one id"
        by_id[r.id] = r
    for tid in errors:
        assert by_id[tid].status == "error" and by_id[f"{tid}~1"].status == "passed"
    report = resumed.report
    stage = report.groups[0].stages[0]
    assert stage.status == "passed" and stage.passRate.n == 3  # the deciding attempt of each repeat only


def test_a_resume_restores_the_runs_settings_and_a_stop_prints_the_resume_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a resume forgot --price (so a model without a known price was refused), the
    concurrency, the cache and the selection, and a stop printed no resume hint."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    data = plan_data()
    data["budget"]["maxLlmCalls"] = 4  # stops mid-run: exit 3
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out, cache = tmp_path / "run dir", tmp_path / "cache"
    runner = CliRunner()
    with running_server(
            resolve_model=get_scripted, model="oracle") as url:
        first = runner.invoke(app, ["run", str(plan), "--model", MODEL, "--api-base", url, "--price", f"{MODEL}=1,2",
                                    "--concurrency", "3", "--group", "A", "--group", "C", "--stage", "simple",
                                    "--max-usd", "5", "--cache", str(cache), "--out", str(out)])
        assert first.exit_code == 3, first.output
        assert f"continue with: harness run {plan} --resume '{out}'" in first.output  # quoted: it has a space
        again = runner.invoke(app, ["run", str(plan), "--resume", str(out), "--concurrency", "1"])
    assert again.exit_code == 3, again.output  # the same cap: still stopped, but resumed, not refused
    settings = json.loads((out / "run.json").read_text(encoding="utf-8"))["settings"]
    assert settings == {"agentModel": MODEL, "maintainerModel": MODEL, "apiBase": url, "groups": ["A", "C"],
                        "stages": ["simple"], "concurrency": 1, "cacheDir": str(cache), "maxUsd": 5.0,
                        "maxTotalTokens": None, "maxLlmCalls": None, "maxWallSeconds": None,
                        "prices": {MODEL: {"input_per_mtok": 1.0, "output_per_mtok": 2.0,
                                           "cached_input_per_mtok": None}}, "sendRejected": False,
                        "modelWorkers": 0}
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["model"]["apiBase"] == url and report["budget"]["limits"]["maxUsd"] == 5.0
    assert report["model"]["prices"][MODEL]["inputPerMTok"] == 1.0
    assert [g["id"] for g in report["groups"]] == ["A", "C"]
    assert any("price of openai/oracle: --price" in c for c in report["caveats"])
