"""``--model-workers``: a run whose litellm calls go through worker processes records what the same run
records in one process (statuses, verdicts, tokens, the provider bodies and request hashes), and its workers
end with it: after the run, after a Ctrl-C, and when the runner itself is killed; each with the workers forked
from the runner and spawned as fresh interpreters (``HARNESS_WORKER_START``)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from harness.models import Prices
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from tests.harness.models.test_model_workers import alive, session_children
from tests.harness.runner._fork import finish, records, start, wait_for
from tests.harness.runner._run import FIXED_PLAN, outcomes, run_plan

MODEL = "openai/oracle"
FREE = {MODEL: Prices(input_per_mtok=0, output_per_mtok=0)}
WORKER = "harness.models.workers._worker"


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-scripted-server-key")


@pytest.fixture(params=["fork", "spawn"])
def start_method(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HARNESS_WORKER_START", request.param)  # a CLI child forked below inherits it
    return str(request.param)


def workers_of(parent: int) -> list[int]:
    """The model workers ``parent`` started (from /proc): its children that lead a session of their own
    (``session_children``), forked (the parent's command line) or spawned (``python -m`` the worker module)."""
    try:
        parents = Path(f"/proc/{parent}/cmdline").read_bytes().decode(errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for pid in session_children(parent):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if WORKER in command or command == parents:
            found.append(pid)
    return found


def calls(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """trial id → what each of its calls sent and got, from the transcripts (times and ids aside)."""
    keep = ("seq", "role", "model", "request", "requestSha256", "providerRequest", "response", "error", "usage",
            "usd", "sampling", "segments")
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((run_dir / "transcripts").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            snap = json.loads(line)
            call = {k: snap.get(k) for k in keep}
            call["providerRequest"] = json.dumps(call["providerRequest"], ensure_ascii=False)  # byte for byte, in order
            out.setdefault(snap["trialId"], []).append(call)
    return out


def trials(outcome: Any) -> dict[str, tuple[Any, ...]]:
    """trial id → its status, verdict (checks, failure mode, pass shape) and metrics (tokens, calls, tools)."""
    return {r.id: (r.status, r.reason, r.failureMode, r.passShape,
                   [c.model_dump(exclude={"evidence"}) for c in r.checks],  # evidence names the run's session ids
                   r.metrics.model_dump()) for r in outcome.experiment.records}


def test_a_run_with_model_workers_records_what_the_same_run_records_in_process(tmp_path: Path,
                                                                              start_method: str) -> None:
    selection: dict[str, Any] = {"groups": ["A", "v1"], "stages": ["simple", "tool_continuation"], "concurrency": 4}
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        local = run_plan(tmp_path / "local", MODEL, api_base=url, prices=FREE, **selection)
        remote = run_plan(tmp_path / "workers", MODEL, api_base=url, prices=FREE, model_workers=1, **selection)
        served = fetch_stats(url)["requests"]
    assert remote.status == local.status == "completed"
    assert outcomes(remote) == outcomes(local)
    assert trials(remote) == trials(local)
    sent, sent_locally = calls(remote.run_dir), calls(local.run_dir)
    assert sent == sent_locally and all(c["providerRequest"] != "null" for cs in sent.values() for c in cs)
    assert served == 2 * sum(len(cs) for cs in sent.values())
    spent, spent_locally = remote.report.budget.spent, local.report.budget.spent
    assert (spent.inputTokens, spent.outputTokens, spent.llmCalls) == (
        spent_locally.inputTokens, spent_locally.outputTokens, spent_locally.llmCalls)
    settings = json.loads((remote.run_dir / "run.json").read_text(encoding="utf-8"))["settings"]
    assert settings["modelWorkers"] == 1  # a resume keeps it
    assert remote.experiment.workers is not None and local.experiment.workers is None
    assert remote.experiment.workers.starts == [start_method]
    assert remote.experiment.workers.pids and not [p for p in remote.experiment.workers.pids if alive(p)]


def test_a_defect_during_the_run_ends_its_workers(tmp_path: Path, start_method: str) -> None:
    started: list[int] = []

    def factory(model: str, **kwargs: Any) -> Any:
        started.extend(workers_of(os.getpid()))
        raise RuntimeError("a defect while building the models")

    with running_server(resolve_model=get_scripted, model="oracle") as url, \
            pytest.raises(RuntimeError, match="a defect while building"):
        run_plan(tmp_path / "run", MODEL, api_base=url, prices=FREE, groups=["A"], stages=["simple"],
                 model_workers=1, model_factory=factory)
    assert len(started) >= 1 and not [p for p in started if alive(p)]


def _slow_run(tmp_path: Path, url: str) -> tuple[Any, Path]:
    out = tmp_path / "run"
    child = start(["run", str(FIXED_PLAN), "--model", MODEL, "--api-base", url, "--price", f"{MODEL}=0,0",
                   "--group", "A", "--stage", "simple", "--concurrency", "3", "--model-workers", "1",
                   "--out", str(out)], tmp_path / "log.txt")
    return child, out


@pytest.mark.parametrize("presses", [1, 2], ids=["ctrl-c", "ctrl-c-twice"])
def test_ctrl_c_stops_the_run_and_ends_its_workers(tmp_path: Path, presses: int, start_method: str) -> None:
    with running_server(resolve_model=get_scripted, model="oracle", latency_ms=300) as url:
        child, out = _slow_run(tmp_path, url)
        assert child.pid is not None
        wait_for(lambda: fetch_stats(url)["in_flight"] > 0, "calls in flight")
        pids = workers_of(child.pid)
        for _ in range(presses):  # a terminal's Ctrl-C reaches the runner (the workers are in their own session)
            os.kill(child.pid, signal.SIGINT)
            time.sleep(0.05)
        code = finish(child)
    log = (tmp_path / "log.txt").read_text(encoding="utf-8")
    assert len(pids) == 1 and not [p for p in pids if alive(p)], log
    assert "Traceback" not in log and "concurrency 3, 1 model worker;" in log
    assert code == 3, log  # stopped, resumable
    if presses == 1:  # the calls in flight finished and were recorded
        assert any(r.status == "skipped" for r in records(out))
    else:  # the calls in flight were cancelled (in the worker too)
        assert "interrupted twice: aborted" in log


def test_workers_never_outlive_a_killed_runner(tmp_path: Path, start_method: str) -> None:
    with running_server(resolve_model=get_scripted, model="oracle", latency_ms=300) as url:
        child, _ = _slow_run(tmp_path, url)
        assert child.pid is not None
        wait_for(lambda: fetch_stats(url)["in_flight"] > 0, "calls in flight")
        pids = workers_of(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        finish(child)
        wait_for(lambda: not [p for p in pids if alive(p)], "the orphaned worker to exit", seconds=30)
    assert len(pids) == 1


def test_scripted_models_stay_in_process_whatever_the_setting(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/oracle", groups=["A"], stages=["simple"], model_workers=2)
    assert outcome.status == "completed" and outcome.experiment.workers is None
    assert workers_of(os.getpid()) == []
