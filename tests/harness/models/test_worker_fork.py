"""A model worker forked from the runner (``harness.models.workers._fork``): which start a setting picks, and
what a forked worker must not inherit: the runner's pipes and sockets (another worker's stdin must still end
when the runner closes it), the runner's signal handlers, a crash that returns into the runner's code.
What a worker does once started is the same for both starts (test_model_workers.py runs each test with both).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models.workers import ModelWorkers, StartError, WorkersFailed, _fork, _pool, _worker, start_method
from tests.harness.models.test_model_workers import alive, session_children
from tests.harness.plan.plan_data import FIXED_PLAN

pytestmark = pytest.mark.skipif(not _fork.fork_supported(), reason="forked workers need Linux with pidfds")


def _in_fresh_interpreter(code: str, env: dict[str, str] | None = None) -> str:
    """What ``code`` prints in a fresh interpreter: one Python thread unless ``code`` starts more."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


PICK = "from harness.models.workers import start_method; print(start_method())"
WITH_A_THREAD = ("import threading; stop = threading.Event(); threading.Thread(target=stop.wait).start(); "
                 f"{PICK}; stop.set()")


@pytest.mark.parametrize(("env", "code", "picked"), [
    ({}, PICK, "fork"),  # auto, the default: one Python thread
    ({"HARNESS_WORKER_START": " Auto "}, PICK, "fork"),
    ({}, WITH_A_THREAD, "spawn"),  # auto: another Python thread could hold a lock the child needs
    ({"HARNESS_WORKER_START": "fork"}, WITH_A_THREAD, "fork"),  # asked for: forks whatever the threads
    ({"HARNESS_WORKER_START": "spawn"}, PICK, "spawn"),
    ({"HARNESS_WORKER_START": ""}, PICK, "fork"),
], ids=["default", "auto", "auto-threads", "fork-threads", "spawn", "empty"])
def test_the_start_a_setting_picks(env: dict[str, str], code: str, picked: str) -> None:
    assert _in_fresh_interpreter(code, env) == picked


def test_an_unknown_start_or_an_impossible_fork_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_WORKER_START", "vfork")
    with pytest.raises(StartError, match=r"^HARNESS_WORKER_START='vfork': expected one of auto, fork, spawn$"):
        start_method()
    with pytest.raises(StartError, match=r"^start='threads': expected one of auto, fork, spawn$"):
        start_method("threads")
    monkeypatch.setattr(_fork, "fork_supported", lambda: False)
    with pytest.raises(StartError, match=r"^start=fork: forking a model worker needs Linux with pidfds"):
        start_method("fork")
    assert start_method("auto") == "spawn"


def test_the_cli_refuses_an_unknown_start_before_any_directory(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_WORKER_START", "vfork")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", "openai/oracle", "--api-base",
                                      "http://127.0.0.1:9/v1", "--price", "openai/oracle=0,0", "--group", "A",
                                      "--stage", "simple", "--model-workers", "1", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "error: HARNESS_WORKER_START='vfork': expected one of auto, fork, spawn" in result.output
    assert "Traceback" not in result.output and not out.exists()


def _links(pid: int) -> dict[int, str]:
    """Each open descriptor of ``pid`` and what it is (``pipe:[…]``, ``socket:[…]``, a path)."""
    out = {}
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            out[int(name)] = os.readlink(f"/proc/{pid}/fd/{name}")
        except FileNotFoundError:  # closed meanwhile
            continue
    return out


def _shared(pid: int) -> set[str]:
    """The pipes and sockets ``pid`` holds that this process holds as well."""
    ours = {v for v in _links(os.getpid()).values() if v.startswith(("pipe:", "socket:"))}
    return {v for v in _links(pid).values() if v in ours}


def test_a_forked_worker_holds_no_pipe_or_socket_of_the_runner_but_its_own() -> None:
    """Each worker shares exactly its own two pipes with the runner: not the runner's listening socket, not
    the pipes of a worker forked before it. So closing one worker's stdin ends that worker, with another alive."""
    listening = socket.create_server(("127.0.0.1", 0))

    async def scenario() -> tuple[list[set[str]], list[int], int | None, list[int | None]]:
        async with ModelWorkers(2, start="fork") as workers:
            await workers.ready()
            shared = [_shared(pid) for pid in workers.pids]
            first, second = workers.workers
            assert first.proc.stdin is not None
            first.proc.stdin.close()  # only its stdin: the other worker must not keep it open
            code = await asyncio.wait_for(first.proc.wait(), 30)
            still = second.proc.returncode
            pids = workers.pids[:1] + [second.proc.pid]
        return shared, pids, code, [still, second.proc.returncode]

    try:
        shared, pids, code, second = asyncio.run(scenario())
    finally:
        listening.close()
    assert [len(s) for s in shared] == [2, 2] and not shared[0] & shared[1]
    assert all(link.startswith("pipe:") for s in shared for link in s)
    assert code == 0 and second[0] is None and second[1] is not None  # the second ended only with the pool
    assert not [pid for pid in pids if alive(pid)]


def test_a_forked_worker_is_the_runner_forked_not_a_fresh_interpreter() -> None:
    async def scenario() -> tuple[list[int], list[str]]:
        async with ModelWorkers(1, start="fork") as forked, ModelWorkers(1, start="spawn") as spawned:
            await forked.ready()
            await spawned.ready()
            pids = forked.pids + spawned.pids
            commands = [Path(f"/proc/{pid}/cmdline").read_bytes().decode() for pid in pids]
            parents = [int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) for pid in pids]
            sessions = [os.getsid(pid) for pid in pids]
        assert parents == [os.getpid()] * 2 and sessions == pids  # both: the runner's children, own sessions
        return pids, commands

    pids, commands = asyncio.run(scenario())
    ours = Path("/proc/self/cmdline").read_bytes().decode()
    assert commands[0] == ours and _pool.WORKER_MODULE in commands[1] and commands[1] != ours
    assert not [pid for pid in pids if alive(pid)]


def test_a_forked_worker_has_none_of_the_runners_signal_handlers() -> None:
    """The runner's Python handler (here for SIGUSR1) is not the worker's: there the signal's default
    disposition applies (it ends the worker), and the runner's handler never runs for it."""
    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, _frame: seen.append(signum))

    async def scenario() -> tuple[int, str | None]:
        async with ModelWorkers(1, start="fork", max_restarts=0) as workers:
            await workers.ready()
            pid = workers.pids[0]
            os.kill(pid, signal.SIGUSR1)
            await asyncio.wait_for(workers.workers[0].proc.wait(), 30)
            await asyncio.sleep(0.05)  # the reader settles how it ended
            return pid, workers.workers[0].ended

    try:
        pid, ended = asyncio.run(scenario())
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert ended == "was killed by SIGUSR1" and seen == [] and not alive(pid)


def test_a_forked_worker_that_fails_to_serve_exits_with_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                                      capfd: pytest.CaptureFixture[str]) -> None:
    """Whatever the child raises, it ends there with exit code 1 and its traceback on stderr: it never returns
    into the runner's code (which would run a second runner)."""
    def broken(in_fd: int, out_fd: int) -> int:
        raise RuntimeError("the worker's loop could not start")

    monkeypatch.setattr(_worker, "serve_fds", broken)

    async def scenario() -> list[int]:
        async with ModelWorkers(1, start="fork") as workers:
            with pytest.raises(WorkersFailed, match=r"model worker 0 \(pid \d+\) exited with code 1 before it"):
                await workers.ready(timeout_s=60)
            assert workers.restarts == 0
            return workers.pids

    pids = asyncio.run(scenario())
    assert "RuntimeError: the worker's loop could not start" in capfd.readouterr().err
    assert not [pid for pid in pids if alive(pid)]


def test_forked_workers_are_made_when_the_run_first_needs_them_and_once() -> None:
    """``start`` forks nothing: ``ready`` (after the runner's parameter check and preflight) or the first call
    does, so the workers inherit what those built. Many callers at once still make ``count`` workers."""
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        async with ModelWorkers(2, start="fork") as workers:
            before = session_children(os.getpid())
            await asyncio.gather(*(workers.ready() for _ in range(3)))
            return before, sorted(workers.pids), sorted(session_children(os.getpid()))

    before, pids, children = asyncio.run(scenario())
    assert before == [] and len(pids) == 2 and children == pids
    assert not [pid for pid in pids if alive(pid)]

    async def closed_before_ready() -> list[int]:
        async with ModelWorkers(1, start="fork") as workers:
            pass
        return workers.pids

    assert asyncio.run(closed_before_ready()) == [] and session_children(os.getpid()) == []


def test_a_fork_that_cannot_finish_leaves_no_child_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked, but its pipes cannot be watched (out of descriptors, or cancelled meanwhile): the child is killed and
    reaped, the error goes on to the caller."""
    async def scenario() -> None:
        loop = asyncio.get_running_loop()

        async def refused(*_args: object) -> None:
            raise OSError(24, "Too many open files")

        monkeypatch.setattr(loop, "connect_write_pipe", refused)
        async with ModelWorkers(1, start="fork") as workers:
            with pytest.raises(OSError, match="Too many open files"):
                await workers.ready()
            assert workers.pids == []

    asyncio.run(scenario())
    assert session_children(os.getpid()) == []


def test_a_forked_worker_reaped_by_someone_else_still_ends_cleanly() -> None:
    """Its exit status taken by another waiter of this process: the pool still learns it ended (its pidfd),
    with the code that says the status is unknown, and fails no later call by hanging."""
    async def scenario() -> tuple[int | None, str | None]:
        async with ModelWorkers(1, start="fork", max_restarts=0) as workers:
            await workers.ready()
            pid = workers.pids[0]
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)  # before the pool's own reader runs: the status is gone
            await asyncio.wait_for(workers.workers[0].proc.wait(), 30)
            await asyncio.sleep(0.05)  # the reader settles how it ended
            return workers.workers[0].proc.returncode, workers.workers[0].ended

    code, ended = asyncio.run(scenario())
    assert code == _fork.UNKNOWN_EXIT and ended == f"exited with code {_fork.UNKNOWN_EXIT}"
