"""Model workers (``harness.models.workers``) through litellm's real client against the scripted server:
a call in a worker returns what the same call returns in this process (output, provider body, redaction,
errors and retries), cancellation reaches the worker, a killed worker fails its calls with a structured
error and is replaced, and no worker outlives its pool.

The pool lives on an event loop of its own (a thread), shared by this module's tests: each spawned worker
imports litellm, which costs seconds of CPU. Every test runs with each start (``fork``, ``spawn``): the
start changes how a worker comes to be, never what it does (``_fork``; what is particular to a forked worker
is in test_worker_fork.py).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.models import LiteLLMModel, ModelCallError, ModelOutput, ModelRequest, Prices
from harness.models.workers import ModelWorkers, WorkerDefect, WorkerModel, WorkersFailed, _pool
from harness.server import ScriptedServer, ServerConfig, fetch_stats, running_server
from tests.harness.server.doubles import LOOKUP_TOOL, Registry
from tests.helpers.emulators import running_app
from tests.helpers.raw_bodies import RawBodies

PLANTED = "sk-PLANTED-9e8d7c6b5a4f3e2d1c0b"


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie waiting for its parent is not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def session_children(parent: int) -> list[int]:
    """``parent``'s children that lead a session of their own, as every model worker does (zombies too)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[1]) == parent and int(fields[3]) == int(entry):
                found.append(int(entry))
    return found


class Loop:
    """An event loop on a thread: ``run`` a coroutine on it from a test and wait for its result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def drain() -> None:  # as asyncio.run ends: no task left pending on a closed loop
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        self.run(drain())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", PLANTED)  # before the workers start: they inherit the environment
        runner = Loop()
        try:
            yield runner
        finally:
            runner.close()


@pytest.fixture(scope="module", params=["fork", "spawn"])
def start(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def pool(loop: Loop, start: str) -> Iterator[ModelWorkers]:
    async def begin() -> ModelWorkers:
        workers = ModelWorkers(1, start=start)
        await workers.start()
        await workers.ready()
        return workers

    workers = loop.run(begin())
    assert workers.starts == [start]
    pids = workers.pids
    try:
        yield workers
    finally:
        loop.run(workers.aclose())
        assert not [pid for pid in pids + workers.pids if alive(pid)]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(model="echo", resolve_model=Registry(), reject_trailing_assistant=True) as url:
        yield url


def _model(url: str, **kwargs: Any) -> LiteLLMModel:
    return LiteLLMModel("openai/echo", api_base=url, **{"backoff_base_s": 0.01, "max_backoff_s": 0.02, **kwargs})


def _request(text: str, tools: bool = False, **kwargs: Any) -> ModelRequest:
    return ModelRequest(messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}],
                        tools=[LOOKUP_TOOL] if tools else [], max_output_tokens=64, **kwargs)


def _same(worker: ModelOutput, local: ModelOutput) -> None:
    """Equal but for the attempt's latency and the response's id and creation time."""
    def masked(output: ModelOutput) -> dict[str, Any]:
        data = output.model_dump()
        data["latency_ms"] = 0
        data["raw_response"] = {k: v for k, v in (data["raw_response"] or {}).items() if k not in ("id", "created")}
        return data

    assert masked(worker) == masked(local)


def both(loop: Loop, pool: ModelWorkers, model: LiteLLMModel, request: ModelRequest) -> tuple[Any, Any]:
    """The same call in a worker and in this process: each its output or the ``ModelCallError`` it raised."""
    remote = pool.wrap(lambda *a, **k: model)("openai/echo")
    assert isinstance(remote, WorkerModel)

    async def outcome(chat: Any) -> Any:
        try:
            return await chat.generate(request)
        except ModelCallError as exc:
            return exc

    return loop.run(outcome(remote)), asyncio.run(outcome(model))  # in this process: as a run would call it


@pytest.mark.parametrize("request_", [
    _request("what is the budget?", temperature=0, seed=7),
    _request("ACME-7", tools=True, temperature=0.2, top_p=0.9),
    _request(f"my key is {PLANTED}, keep it", timeout_seconds=30),
], ids=["text", "tool-call", "secret-in-message"])
def test_a_call_in_a_worker_returns_what_it_returns_in_process(loop: Loop, pool: ModelWorkers, server: str,
                                                              request_: ModelRequest) -> None:
    worker, local = both(loop, pool, _model(server), request_)
    assert isinstance(worker, ModelOutput) and isinstance(local, ModelOutput)
    _same(worker, local)
    assert worker.provider_request is not None and worker.provider_request["messages"][0]["role"] == "system"
    # the body sent and the response kept are redacted in the worker, as in this process
    assert PLANTED not in repr(worker.provider_request) + repr(worker.raw_response)


def test_declared_prices_never_reach_the_wire_from_a_worker(loop: Loop, pool: ModelWorkers) -> None:
    """A worker hands litellm the declared prices as the runner's process does (its own per-call pricing kwargs,
    tests/harness/models/test_pricing_kwargs.py): the server receives the same bytes from both, with or without."""
    raw = RawBodies()
    request = _request("ACME-7", tools=True, temperature=0, seed=7)
    with running_app(raw.around(ScriptedServer(ServerConfig(model="echo"), Registry()).app.build)) as url:
        plain = both(loop, pool, _model(url + "/v1"), request)
        priced = both(loop, pool, _model(url + "/v1", prices=Prices(input_per_mtok=1.25, output_per_mtok=7.5)), request)
    assert len(raw.received) == 4 and len({body for _, body in raw.received}) == 1
    _same(*plain)
    _same(*priced)
    usage = priced[0].usage
    assert priced[0].usd == pytest.approx((usage.input_tokens * 1.25 + usage.output_tokens * 7.5) / 1e6)
    assert plain[0].provider_request_json == priced[0].provider_request_json


def test_a_refusal_arrives_as_the_same_structured_error(loop: Loop, pool: ModelWorkers, server: str) -> None:
    trailing = ModelRequest(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}])
    worker, local = both(loop, pool, _model(server), trailing)
    assert isinstance(worker, ModelCallError) and isinstance(local, ModelCallError)
    assert (worker.kind, worker.status_code, worker.sent) == ("provider_rejected", 400, True)
    assert worker.to_dict() == local.to_dict()


def test_retries_run_in_the_worker_with_the_adapters_rules(loop: Loop, pool: ModelWorkers) -> None:
    with running_server(model="echo", resolve_model=Registry(), fault_rate=1.0, fault_kinds=("500",)) as url:
        worker, local = both(loop, pool, _model(url, max_retries=2), _request("x"))
        served = fetch_stats(url)["requests"]
    assert isinstance(worker, ModelCallError) and isinstance(local, ModelCallError)
    assert worker.kind == "infrastructure" and worker.message.startswith("gave up after 3 attempts")
    assert served == 6  # three attempts each
    strip = [{**r.model_dump(), "waited_ms": 0} for r in worker.retries]
    assert strip == [{**r.model_dump(), "waited_ms": 0} for r in local.retries] and len(strip) == 3


def test_a_defect_in_the_worker_is_raised_as_a_defect(loop: Loop, pool: ModelWorkers, server: str) -> None:
    model = _model(server)
    model.max_retries = -1  # the worker cannot build this adapter: a host defect, not a model's error
    remote = pool.wrap(lambda *a, **k: model)("openai/echo")
    with pytest.raises(WorkerDefect, match="max_retries must be >= 0"):
        loop.run(remote.generate(_request("x")))


def test_cancelling_a_call_cancels_it_in_the_worker(loop: Loop, pool: ModelWorkers) -> None:
    with running_server(model="echo", resolve_model=Registry(), latency_ms=20_000) as url:
        remote = pool.wrap(lambda *a, **k: _model(url))("openai/echo")

        async def cancel() -> None:
            call = asyncio.ensure_future(remote.generate(_request("slow")))
            while fetch_stats(url)["in_flight"] == 0:
                await asyncio.sleep(0.02)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call

        loop.run(cancel())
        deadline = time.monotonic() + 10
        while fetch_stats(url)["in_flight"] and time.monotonic() < deadline:
            time.sleep(0.02)  # the worker hung up: the server's handler was cancelled
        assert fetch_stats(url)["in_flight"] == 0
    assert not pool.workers[0].pending


def test_a_killed_worker_fails_its_calls_and_is_replaced(loop: Loop, start: str) -> None:
    with running_server(model="echo", resolve_model=Registry(), latency_ms=20_000) as slow, \
            running_server(model="echo", resolve_model=Registry()) as fast:

        async def scenario() -> tuple[list[Any], ModelOutput, list[int], list[int]]:
            async with ModelWorkers(1, start=start) as workers:
                await workers.ready()
                first = workers.pids
                remote = workers.wrap(lambda *a, **k: _model(slow))("openai/echo")
                calls = [asyncio.ensure_future(remote.generate(_request(f"q{i}"))) for i in range(3)]
                while fetch_stats(slow)["in_flight"] < 3:
                    await asyncio.sleep(0.02)
                os.kill(first[0], signal.SIGKILL)
                failed = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
                await workers.ready()  # its replacement
                after = await workers.wrap(lambda *a, **k: _model(fast))("openai/echo").generate(_request("hi"))
                pids = workers.pids
            return failed, after, first, pids

        failed, after, first, pids = loop.run(scenario())
    for error in failed:
        assert isinstance(error, ModelCallError) and error.kind == "infrastructure"
        assert error.message == f"model worker 0 (pid {first[0]}) was killed by SIGKILL while this call was in flight"
    assert after.content == "echo: hi" and pids != first
    assert not [pid for pid in first + pids if alive(pid)]  # none outlives the pool


def test_closing_waits_for_the_processes_even_when_their_readers_were_cancelled(loop: Loop, start: str) -> None:
    """As a second Ctrl-C ends a run: asyncio.run cancels every task, the workers' readers too, and the
    pool's close must still see each process gone before the runner exits."""

    async def scenario() -> list[int]:
        workers = ModelWorkers(2, start=start)
        await workers.start()
        await workers.ready()
        readers = [w.reader for w in workers.workers if w.reader is not None]
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await workers.aclose()
        return workers.pids

    pids = loop.run(scenario())
    assert len(pids) == 2 and not [pid for pid in pids if alive(pid)]


def test_a_pool_closed_before_its_workers_are_ready_kills_them_at_once(loop: Loop) -> None:
    """A run refused before its first call (a parameter, a locked directory) ends workers still importing
    litellm: killed, not left to finish an import for nothing before they read the end of their stdin."""

    async def scenario() -> tuple[list[int], list[int | None]]:
        workers = ModelWorkers(1, start="spawn")  # a forked worker is ready at once: nothing to cut short
        await workers.start()
        await workers.aclose()
        return workers.pids, [w.proc.returncode for w in workers.workers]

    pids, codes = loop.run(scenario())
    assert codes == [-signal.SIGKILL] and not [pid for pid in pids if alive(pid)]


def test_a_worker_that_cannot_start_is_a_clear_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "WORKER_MODULE", "harness.models.workers.no_such_module")

    async def scenario() -> list[int]:
        async with ModelWorkers(1, start="spawn") as workers:
            with pytest.raises(WorkersFailed, match=r"model worker 0 \(pid \d+\) exited with code 1 before it"):
                await workers.ready(timeout_s=60)
            with pytest.raises(ModelCallError, match="no model worker is running"):
                await workers.call(("openai/echo",), _request("x"))
            assert workers.restarts == 0  # one that never started is not started again
            return workers.pids

    assert not [pid for pid in asyncio.run(scenario()) if alive(pid)]


def test_a_stuck_worker_is_killed_once_its_calls_are_overdue(loop: Loop, server: str, start: str) -> None:
    """A worker that stops answering (here: SIGSTOP) fails its calls once the longest they could take there
    (every attempt's timeout, every backoff) is past, plus the pool's margin: never a hang."""
    async def scenario() -> tuple[list[Any], list[int]]:
        async with ModelWorkers(1, max_restarts=0, answer_margin_s=1.0, start=start) as workers:
            await workers.ready()
            pids = workers.pids
            os.kill(pids[0], signal.SIGSTOP)
            remote = workers.wrap(lambda *a, **k: _model(server, max_retries=0))("openai/echo")
            calls = [remote.generate(_request("x", timeout_seconds=1)) for _ in range(2)]
            errors = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
        return errors, pids

    errors, pids = loop.run(scenario())
    stuck = f"model worker 0 (pid {pids[0]}) did not answer a call within 2 s (its timeouts and retries allow 1 s) " \
            "and was killed"
    assert [(type(e), e.kind) for e in errors] == [(ModelCallError, "infrastructure")] * 2
    assert all(e.message in (stuck, f"{stuck} while this call was in flight") for e in errors)
    assert not alive(pids[0])


def test_a_worker_that_never_gets_ready_is_a_clear_error_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "WORKER_MODULE", "code")  # Python's console: reads its stdin, never says ready

    async def scenario() -> list[int]:
        async with ModelWorkers(1, start="spawn") as workers:
            with pytest.raises(WorkersFailed, match=r"1 of the 1 model workers did not start within 0.5 s"):
                await workers.ready(timeout_s=0.5)
            return workers.pids

    assert not [pid for pid in asyncio.run(scenario()) if alive(pid)]  # its stdin closed: it ended
