"""One process per run directory (issue 10, breakage 5): two ``--resume`` of one directory at once
ran the same trials twice and broke the directory. The second process is now refused (exit 2)
naming the holder; a SIGKILLed holder leaves no stale lock; report and rescore wait their turn."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.runner import RunLocked, exclusive, shared
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._fork import finish, idle, lock_holder, records, start, wait_for
from tests.harness.runner._run import FIXED_PLAN, run_plan

MODEL = "openai/oracle"
runner = CliRunner()


def test_two_resumes_at_once_one_is_refused_and_no_trial_runs_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    run_dir = tmp_path / "run"
    with running_server(resolve_model=get_scripted, model="oracle", latency_ms=5) as url:
        argv = ["run", str(FIXED_PLAN), "--model", MODEL, "--api-base", url, "--concurrency", "2",
                "--group", "A", "--stage", "simple", "--stage", "tool_continuation"]
        first = start([*argv, "--price", f"{MODEL}=0,0", "--out", str(run_dir)], tmp_path / "first.log")
        wait_for(lambda: sum(r.finished for r in records(run_dir)) >= 2, "two finished trials")
        first.kill()
        assert finish(first) == -signal.SIGKILL
        assert lock_holder(run_dir)["pid"] == first.pid  # the killed holder's description stays ...
        before = idle(url)["requests"]
        lines_before = len(records(run_dir))

        resume = [*argv[:1], str(FIXED_PLAN), "--resume", str(run_dir)]  # settings come from run.json
        a = start(resume, tmp_path / "a.log")
        wait_for(lambda: lock_holder(run_dir).get("pid") == a.pid, "the first resume to hold the directory")
        os.kill(a.pid, signal.SIGSTOP)  # ... but is no lock: the resume took it; now it holds it for sure
        try:
            b = start(resume, tmp_path / "b.log")
            assert finish(b) == 2
        finally:
            os.kill(a.pid, signal.SIGCONT)
        assert finish(a) == 0, (tmp_path / "a.log").read_text()
        during = idle(url)["requests"] - before

    refused = (tmp_path / "b.log").read_text(encoding="utf-8")
    assert f"{run_dir} is in use by harness run pid {a.pid} on host {socket.gethostname()}, started at 20" in refused
    assert "Traceback" not in refused
    written = records(run_dir)
    finished = [r.id for r in written if r.finished]
    assert len(finished) == len(set(finished)) == 5  # A: simple 3, tool_continuation 2; each decided once
    # the model was called exactly for the trials the one running resume recorded, never twice
    assert during == sum(len(r.calls) for r in written[lines_before:]) > 0
    calls_logged = len((run_dir / "calls.jsonl").read_text(encoding="utf-8").splitlines())
    report = (run_dir / "report.json").read_text(encoding="utf-8")
    assert f'"llmCalls": {calls_logged}' in report and '"status": "completed"' in report
    assert lock_holder(run_dir) == {}  # released and cleared at the end


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("locked") / "run"
    run_plan(out, groups=["A"], stages=["simple"], render=True)
    return out


def _refused(argv: list[str], directory: Path) -> str:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert f"{directory} is in use by test holder pid {os.getpid()} on host {socket.gethostname()}" in result.output
    assert "Traceback" not in result.output
    return str(result.output)


@pytest.mark.parametrize("command", ["resume", "report", "rescore"])
def test_a_directory_a_run_holds_refuses_a_resume_report_and_rescore(finished_run: Path, command: str) -> None:
    """``harness report`` and ``harness rescore`` only read, but what they read the run rewrites
    when it ends: while a run holds the directory they are refused, naming it (docs: _lock)."""
    argv = {"resume": ["run", str(FIXED_PLAN), "--resume", str(finished_run)],
            "report": ["report", str(finished_run)],
            "rescore": ["rescore", str(finished_run), "--out", str(finished_run.parent / "rescored")]}[command]
    with exclusive(finished_run, "test holder"):
        _refused(argv, finished_run)
    assert runner.invoke(app, argv).exit_code == 0  # once it is free


def test_a_fresh_out_and_a_sweep_are_locked_too(tmp_path: Path) -> None:
    out = tmp_path / "new"
    with exclusive(out, "test holder"):
        _refused(["run", str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--out", str(out)], out)
        _refused(["run", str(FIXED_PLAN), "--model", "scripted/oracle", "--model", "scripted/prefill-continuer",
                  "--group", "A", "--stage", "simple", "--out", str(out)], out)
    assert not (out / "run.json").exists() and not (out / "sweep.json").exists()  # nothing ran


def test_a_sweep_locks_its_directory_and_each_model_run(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    argv = ["run", str(FIXED_PLAN), "--model", "scripted/oracle", "--model", "scripted/prefill-continuer",
            "--group", "A", "--stage", "simple", "--out", str(out)]
    with exclusive(out / "scripted-prefill-continuer", "test holder"):  # the second model's directory
        result = runner.invoke(app, argv)
    assert result.exit_code == 2 and "scripted-prefill-continuer is in use by test holder" in result.output
    assert (out / "scripted-oracle" / "report.json").is_file()  # the first model ran before
    with exclusive(out, "test holder"):
        _refused(["run", str(FIXED_PLAN), "--resume", str(out)], out)
        _refused(["report", str(out)], out)
    resumed = runner.invoke(app, ["run", str(FIXED_PLAN), "--resume", str(out)])
    assert resumed.exit_code == 0, resumed.output
    assert lock_holder(out) == {} and lock_holder(out / "scripted-oracle") == {}


def test_readers_share_and_keep_a_run_out(tmp_path: Path) -> None:
    with shared(tmp_path):  # no run.lock: nothing to hold, and nothing is written
        pass
    assert list(tmp_path.iterdir()) == []
    with exclusive(tmp_path, "writer"):
        pass
    with shared(tmp_path), shared(tmp_path):  # two readers at once
        with pytest.raises(RunLocked, match="in use by a process reading it"):
            with exclusive(tmp_path, "writer"):
                pass
