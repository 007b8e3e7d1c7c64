"""Q-10, X-81: ``harness run`` killed with SIGKILL twice mid-run, then ``--resume`` to the end, gives
the per-trial outcomes and totals of an uninterrupted run, and no finished trial calls the model
again: the scripted server counts every request (GET /stats).

The runner runs in forked children (``harness run`` through the CLI app, the process the test
kills); forking after the imports keeps each start well under a second.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import pytest

from harness.models import Prices
from harness.results import TrialRecord
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._fork import idle, records
from tests.harness.runner._run import FIXED_PLAN, run_plan

GROUPS = ["A", "v1", "prefix"]  # 16 trials, every stage, about 60 calls
MODEL = "openai/oracle"


def _cli(argv: list[str]) -> None:
    """The child: ``harness run ...`` with output discarded; its exit code is the CLI's."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    from harness.cli import app

    try:
        app(argv, prog_name="harness")
    except SystemExit as exc:
        os._exit(exc.code if isinstance(exc.code, int) else 1)
    os._exit(0)


def _run_until(argv: list[str], run_dir: Path, finished: int | None) -> int:
    """Start ``harness run``; SIGKILL it once ``finished`` trials are persisted (None: let it end)."""
    child = multiprocessing.get_context("fork").Process(target=_cli, args=(argv,))
    child.start()
    deadline = time.monotonic() + 60
    while finished is not None and child.is_alive() and time.monotonic() < deadline:
        if sum(r.finished for r in records(run_dir)) >= finished:
            child.kill()
            break
        time.sleep(0.005)
    child.join(timeout=60)
    assert child.exitcode is not None, "harness run did not end"
    return child.exitcode


def _trials(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for g in report["groups"] for s in g["stages"] for t in s["trials"]}


def _repeat(trial_id: str) -> str:
    """A trial id without its attempt (``v1/simple/1~1`` -> ``v1/simple/1``)."""
    return trial_id.partition("~")[0]


def _stage_totals(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(g["id"], s["id"], s["status"], s["passRate"], s["passHatK"], s["metrics"])
            for g in report["groups"] for s in g["stages"]]


def test_sigkill_twice_then_resume_matches_an_uninterrupted_run_Q10(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    price = {MODEL: Prices(input_per_mtok=0, output_per_mtok=0)}
    run_dir = tmp_path / "run"
    argv = ["run", str(FIXED_PLAN), "--model", MODEL, "--price", f"{MODEL}=0,0", "--concurrency", "4",
            *[a for g in GROUPS for a in ("--group", g)]]
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        reference = run_plan(tmp_path / "reference", MODEL, api_base=url, groups=GROUPS, concurrency=4,
                             prices=price)
        ref_requests = idle(url)["requests"]
        assert ref_requests == sum(len(r.calls) for r in reference.experiment.records)  # the counting holds

        argv += ["--api-base", url]
        killed = _run_until([*argv, "--out", str(run_dir)], run_dir, finished=3)
        done_1 = {r.id: r.sessionId for r in records(run_dir) if r.finished}
        assert killed == -9 and 3 <= len(done_1) < 16
        idle(url)
        killed = _run_until([*argv, "--resume", str(run_dir)], run_dir, finished=len(done_1) + 4)
        done_2 = {r.id: r.sessionId for r in records(run_dir) if r.finished}
        assert killed == -9 and len(done_2) < 16
        before_last = idle(url)["requests"]
        lines_before_last = len(records(run_dir))
        assert _run_until([*argv, "--resume", str(run_dir)], run_dir, finished=None) == 0
        last_requests = idle(url)["requests"] - before_last

    recorded = records(run_dir)
    finished_ids = [r.id for r in recorded if r.finished]
    assert len(finished_ids) == len(set(finished_ids)) == 16  # no finished trial ran twice
    # The last process called the model exactly for the trials it ran: none for earlier ones.
    assert last_requests == sum(len(r.calls) for r in recorded[lines_before_last:])
    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    expected = json.loads((reference.run_dir / "report.json").read_text(encoding="utf-8"))
    got, want = _trials(report), _trials(expected)
    # Same outcome and the same tokens, calls and tool calls per repeat, so the same stage totals. By repeat, not
    # by trial id: a kill between a trial's transcript and its record leaves the transcript alone, and the resumed
    # repeat then runs as the next attempt (``~1``), its id never reused (X-81, RunDir.transcript_attempts).
    assert {_repeat(i): (t["status"], t["metrics"]) for i, t in got.items()} == \
           {_repeat(i): (t["status"], t["metrics"]) for i, t in want.items()}
    assert len({_repeat(i) for i in got}) == len(got)  # one recorded attempt per repeat
    for trial_id, session in done_2.items():
        assert got[trial_id]["sessionId"] == session  # a trial finished before a kill is kept as it was
    assert _stage_totals(report) == _stage_totals(expected)
    calls_logged = len((run_dir / "calls.jsonl").read_text(encoding="utf-8").splitlines())
    assert report["budget"]["spent"]["llmCalls"] == calls_logged >= ref_requests  # killed calls still count
    unattributed = calls_logged - sum(t["metrics"]["llmCalls"] for t in got.values())
    said = [c for c in report["caveats"] if "belong to no recorded trial" in c]
    assert said == ([] if unattributed == 0 else [said[0]]) and (not said or said[0].startswith(f"{unattributed} "))
    assert report["status"] == "completed" and report["stopReason"] is None


def test_a_torn_last_line_is_dropped_before_the_next_append_X81(tmp_path: Path) -> None:
    """A process killed mid-write leaves half a line; the next process's first record must not be
    glued onto it (it would be unreadable on the next resume), and the budget log likewise."""
    from harness.runner._persist import CALLS, TRIALS, RunDir

    first = TrialRecord(id="A/simple/0", group="A", stage="simple", repeat=0, status="passed")
    second = TrialRecord(id="A/simple/1", group="A", stage="simple", repeat=1, status="failed")
    (tmp_path / TRIALS).write_text(first.model_dump_json() + "\n" + second.model_dump_json()[:40], encoding="utf-8")
    (tmp_path / CALLS).write_text('{"usd": 0.5, "inputTokens": 10}\n{"usd": 0.2, "inp', encoding="utf-8")
    run_dir = RunDir(tmp_path)
    assert [r.id for r in run_dir.records()] == ["A/simple/0"]
    run_dir.append_record(second)
    run_dir.append_call({"usd": 0.25, "inputTokens": 5})
    run_dir.close()
    assert [r.id for r in RunDir(tmp_path).records()] == ["A/simple/0", "A/simple/1"]
    spent = RunDir(tmp_path).spent()
    assert (spent.llmCalls, spent.usd, spent.inputTokens) == (2, 0.75, 15)


def test_a_resume_counts_the_wall_time_the_last_process_reported_after_its_last_call(tmp_path: Path) -> None:
    """The budget log's wall time is that of the last call; the process ran on (its tail: the last trials'
    checks, the report) and report.json says how long: a resume counts that, as the stop message did."""
    from harness.runner._persist import CALLS, RunDir

    (tmp_path / CALLS).write_text('{"inputTokens": 5, "wallSeconds": 5.0}\n', encoding="utf-8")
    assert RunDir(tmp_path).spent().wallSeconds == 5.0
    (tmp_path / "report.json").write_text(json.dumps({"budget": {"spent": {"wallSeconds": 7.5}}}), encoding="utf-8")
    assert RunDir(tmp_path).spent().wallSeconds == 7.5
    (tmp_path / "report.json").write_text("{torn", encoding="utf-8")  # unreadable: the log's value stands
    assert RunDir(tmp_path).spent().wallSeconds == 5.0
