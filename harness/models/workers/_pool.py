"""``ModelWorkers``: litellm's part of a run's model calls in worker processes, many calls per worker.

litellm's own work per call (``acompletion``'s set-up, pricing, logging payload, the OpenAI client) is
several milliseconds of CPU that no setting removes; in one process it caps the calls per second a run
can make against a fast server. A pool of workers (forked from the runner once it has imported litellm, or
fresh interpreters: ``_fork``; each runs ``_worker``) runs
``LiteLLMModel.generate`` whole for the runner: the same litellm call with the same parameters, the
provider body captured and redacted there, the adapter's retries. Everything else of the run (engine,
store, budget, persistence, the refusal memo, the cache) stays in the runner's process.

A call goes to the worker with the fewest calls in flight. Cancelling it in the runner (a trial
cancelled, the run torn down) cancels it in the worker. A worker that exits fails the calls it carried
with ``ModelCallError("infrastructure")`` naming it and how it ended, and is started again (up to
``2 × count`` times a run); its later calls go to the others meanwhile. A worker that has not answered a
call long after the call's own timeouts and retries would have ended it is stuck: it is killed, the same.
``aclose`` ends every worker (stdin closed, then killed if it lingers; one still importing litellm, which
can have nothing to finish, is killed at once) and waits for each; a worker whose
runner is gone sees its stdin end and exits by itself.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from .._errors import ModelCallError
from .._litellm import LiteLLMModel
from .._redact import mark_scanned
from .._setup import ensure_litellm
from .._types import ChatModel, ModelOutput, ModelRequest
from ._fork import WorkerProcess, fork_worker, start_method
from ._frames import Spec, error_of, frame, read_frame, spec_of

WORKER_MODULE = "harness.models.workers._worker"
READY_TIMEOUT_S = 300.0
"""How long ``ready`` waits for the workers' litellm import (seconds on a busy machine, never minutes)."""
CLOSE_GRACE_S = 5.0


class WorkerDefect(RuntimeError):
    """A host defect raised inside a worker's call: the traceback it had there (redacted)."""


class WorkersFailed(RuntimeError):
    """The workers could not start (litellm not importable in a fresh interpreter, …): a defect of the set-up."""


def stays_in_process(model: str) -> bool:
    """Whether a model string's calls stay in the runner's process whatever ``--model-workers`` says:
    ``scripted/*``, litellm's in-process custom provider, which needs this process's registry."""
    return model.startswith("scripted/")


def runs_in_workers(model: object) -> TypeGuard[LiteLLMModel]:
    """Whether a built model's calls can run in a worker: the litellm adapter on any route but one that
    ``stays_in_process`` and without an injected ``sleep`` (tests' clocks do not cross processes)."""
    return type(model) is LiteLLMModel and not stays_in_process(model.model) and model._sleep is asyncio.sleep


@dataclass
class _Worker:
    slot: int
    proc: WorkerProcess
    ready: asyncio.Future[None]
    start: str
    """``fork`` or ``spawn`` (``_fork.start_method``)."""
    pending: dict[int, asyncio.Future[tuple[Any, ...]]] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None
    ended: str | None = None
    """How the process ended (``exited with code 1``, ``was killed by SIGKILL``), once it has."""
    fault: str | None = None
    """Why the pool killed it (an unreadable frame, a call it never answered), said instead of the signal."""

    def send(self, message: tuple[Any, ...]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(message))


class ModelWorkers:
    """``count`` worker processes for one run; use as ``async with ModelWorkers(n) as workers``."""

    def __init__(self, count: int, *, max_restarts: int | None = None, answer_margin_s: float = 30.0,
                 start: str | None = None) -> None:
        if count < 1:
            raise ValueError("ModelWorkers needs at least one worker")
        self.count = count
        self.start_setting = start
        """``auto``, ``fork`` or ``spawn``; None: ``HARNESS_WORKER_START`` (``_fork``), read at each worker's start."""
        self.answer_margin_s = answer_margin_s
        self.max_restarts = 2 * count if max_restarts is None else max_restarts
        self.restarts = 0
        self.workers: list[_Worker] = []
        self._ids = itertools.count(1)
        self._closing = False
        self._replacing: dict[int, asyncio.Task[None]] = {}
        self._deferred = False
        """Forked workers not made yet: ``ready`` (or the first call) forks them."""
        self._forking = asyncio.Lock()

    async def __aenter__(self) -> ModelWorkers:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.workers]

    @property
    def starts(self) -> list[str]:
        """How each worker started: ``fork`` or ``spawn``."""
        return [w.start for w in self.workers]

    async def start(self) -> None:
        """Start the workers. Spawned ones start now (their imports run meanwhile; ``ready`` waits for them).
        Forked ones are made by ``ready`` (or the first call), so they inherit all the runner has set up by then:
        litellm imported, and the request paths its parameter check and preflight made it build lazily, which a
        worker's first call would otherwise build again (about 0.1 s of CPU)."""
        if start_method(self.start_setting) == "fork":
            self._deferred = True
            return
        try:
            await self._start_all()
        except BaseException:
            await self.aclose()
            raise

    async def _start_all(self) -> None:
        for slot in range(len(self.workers), self.count):
            if self._closing:
                return
            self.workers.append(await self._spawn(slot))

    async def _fork_deferred(self) -> None:
        """Make the forked workers ``start`` left for later, once, however many callers wait for them; what
        fails to start is ended by ``aclose`` as any worker."""
        async with self._forking:
            if self._deferred:  # still set while the fork is under way: the other callers wait for it above
                try:
                    await self._start_all()
                finally:
                    self._deferred = False

    async def ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Wait until every worker (a replacement too) has imported litellm (a forked one: is running);
        ``WorkersFailed`` when one cannot."""
        if self._deferred:
            await self._fork_deferred()
        if self._replacing:
            await asyncio.wait(list(self._replacing.values()))
        # asyncio.wait, not wait_for: a timeout must not cancel the futures the readers still settle
        done, late = await asyncio.wait([w.ready for w in self.workers], timeout=timeout_s,
                                        return_when=asyncio.FIRST_EXCEPTION)
        for future in done:
            future.result()  # WorkersFailed of a worker that ended before it was ready
        if late:
            raise WorkersFailed(f"{len(late)} of the {self.count} model workers did not start within {timeout_s:g} s")

    async def _spawn(self, slot: int) -> _Worker:
        start = start_method(self.start_setting)
        proc: WorkerProcess
        if start == "fork":
            from ._worker import serve_fds  # not at import: ``python -m`` runs that module as a spawned worker

            ensure_litellm()  # once per process: every forked worker inherits it (``_fork``)
            proc = await fork_worker(serve_fds)
        else:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", WORKER_MODULE, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                start_new_session=True)  # a terminal's Ctrl-C is the runner's to handle
        worker = _Worker(slot, proc, asyncio.get_running_loop().create_future(), start)
        worker.reader = asyncio.create_task(self._read(worker), name=f"model-worker-{slot}")
        return worker

    async def _read(self, worker: _Worker) -> None:
        assert worker.proc.stdout is not None
        try:
            while (message := await read_frame(worker.proc.stdout)) is not None:
                if message[0] == "ready":
                    if not worker.ready.done():
                        worker.ready.set_result(None)
                    continue
                waiting = worker.pending.pop(message[1], None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(message)
        except Exception as exc:  # a frame that cannot be read: the worker is no longer to be trusted
            _kill_for(worker, f"sent an unreadable frame ({type(exc).__name__}: {exc}) and was killed")
        code = await worker.proc.wait()
        worker.ended = worker.fault or _ending(code)
        self._failed(worker)

    def _failed(self, worker: _Worker) -> None:
        """Fail what a worker that ended carried, and start another in its place unless the run is closing."""
        if not worker.ready.done():
            worker.ready.set_exception(WorkersFailed(
                f"model worker {worker.slot} (pid {worker.proc.pid}) {worker.ended} before it was ready "
                "(its stderr is above)"))
            worker.ready.exception()  # retrieved: a worker that ends late in a run is awaited by nobody
        what = ("the run's model workers were shut down" if self._closing else
                f"model worker {worker.slot} (pid {worker.proc.pid}) {worker.ended} while this call was in flight")
        for waiting in worker.pending.values():
            if not waiting.done():
                waiting.set_exception(ModelCallError("infrastructure", what))
        worker.pending.clear()
        if not self._closing and self.restarts < self.max_restarts and worker.ready.exception() is None:
            self.restarts += 1
            self._replacing[worker.slot] = asyncio.get_running_loop().create_task(self._replace(worker))

    async def _replace(self, worker: _Worker) -> None:
        try:
            fresh = await self._spawn(worker.slot)
            if self._closing:  # closed while it started: end it too
                await self._end([fresh])
            elif worker.slot < len(self.workers):
                self.workers[worker.slot] = fresh
        finally:
            self._replacing.pop(worker.slot, None)

    def wrap(self, factory: Callable[..., ChatModel]) -> Callable[..., ChatModel]:
        """A model factory whose litellm models call through the workers (``runs_in_workers``); any
        other model it builds (``scripted/*``) stays as it is, in this process."""

        def make(model: str, *args: Any, **kwargs: Any) -> ChatModel:
            built = factory(model, *args, **kwargs)
            return WorkerModel(built, self) if runs_in_workers(built) else built

        return make

    async def call(self, spec: Spec, request: ModelRequest, answer_within_s: float | None = None) -> ModelOutput:
        """The call run in a worker. ``answer_within_s``: the longest its attempts, timeouts and waits can take
        there; a worker that has not answered by then (plus ``answer_margin_s``) is stuck: it is killed, and
        the calls it carried fail as when it dies."""
        if self._deferred:
            await self._fork_deferred()
        if self._replacing and all(w.ended is not None for w in self.workers):
            await asyncio.wait(list(self._replacing.values()))  # its frames wait in the new worker's pipe
        worker = self._pick()
        call_id = next(self._ids)
        reply: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
        worker.pending[call_id] = reply
        worker.send(("call", call_id, spec, request))
        limit = None if answer_within_s is None else answer_within_s + self.answer_margin_s
        try:
            async with asyncio.timeout(limit):
                message = await reply
        except TimeoutError:
            if worker.ended is None:
                _kill_for(worker, f"did not answer a call within {limit:g} s (its timeouts and retries allow "
                                  f"{answer_within_s:g} s) and was killed")
            worker.pending.pop(call_id, None)
            raise ModelCallError("infrastructure", f"model worker {worker.slot} (pid {worker.proc.pid}) "
                                                   f"{worker.fault or worker.ended}") from None
        except asyncio.CancelledError:
            if worker.pending.pop(call_id, None) is not None and worker.ended is None:
                worker.send(("cancel", call_id))
            raise
        if message[0] == "ok":
            output: ModelOutput = message[2]
            if message[3] and output.provider_request_json is not None:
                mark_scanned(output.provider_request_json)  # the snapshot looks for this process's secrets
            return output
        if message[0] == "error":
            raise error_of(message)
        raise WorkerDefect(f"a model call raised in worker {worker.slot} (pid {worker.proc.pid}):\n{message[2]}")

    def _pick(self) -> _Worker:
        if self._closing:
            raise ModelCallError("infrastructure", "the run's model workers were shut down")
        live = [w for w in self.workers if w.ended is None]
        if not live:
            ends = "; ".join(f"worker {w.slot} (pid {w.proc.pid}) {w.ended}" for w in self.workers)
            raise ModelCallError("infrastructure", f"no model worker is running ({ends}; restarted "
                                                   f"{self.restarts} times, at most {self.max_restarts})")
        return min(live, key=lambda w: len(w.pending))

    async def aclose(self) -> None:
        """End every worker and wait for it: stdin closed (it exits), killed after ``CLOSE_GRACE_S``; a worker
        not yet ready (a run refused before its first call) is killed at once."""
        self._closing = True
        async with self._forking:  # a fork under way stops after the worker it is making, which ends below
            self._deferred = False
        if self._replacing:
            await asyncio.wait(list(self._replacing.values()))
        await self._end(self.workers)

    async def _end(self, workers: list[_Worker]) -> None:
        for worker in workers:
            if not worker.ready.done():  # still importing litellm: nothing it could finish, no reason to wait
                _kill([worker])
            elif worker.proc.stdin is not None and worker.proc.returncode is None:
                worker.proc.stdin.close()
        readers = [w.reader for w in workers if w.reader is not None]
        try:
            if readers:
                _, lingering = await asyncio.wait(readers, timeout=CLOSE_GRACE_S)
                if lingering:
                    _kill(workers)
                    await asyncio.wait(readers)
            # A reader cancelled with the rest of the run (a second Ctrl-C: asyncio.run cancels every task)
            # ends before its process does: wait for the processes themselves as well.
            exits = [asyncio.ensure_future(w.proc.wait()) for w in workers if w.proc.returncode is None]
            if exits:
                _, running = await asyncio.wait(exits, timeout=CLOSE_GRACE_S)
                if running:
                    _kill(workers)
                    await asyncio.wait(exits)
        except BaseException:  # cancelled while closing: never leave a worker behind
            _kill(workers)
            raise


def _kill_for(worker: _Worker, fault: str) -> None:
    worker.fault = worker.fault or fault
    if worker.proc.returncode is None:
        try:
            worker.proc.kill()
        except ProcessLookupError:
            pass


def _kill(workers: list[_Worker]) -> None:
    for worker in workers:
        if worker.proc.returncode is None:
            try:
                worker.proc.kill()
            except ProcessLookupError:
                pass


def _ending(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class WorkerModel:
    """A ``LiteLLMModel`` whose calls run in the run's workers (``ModelWorkers.wrap`` builds it)."""

    def __init__(self, inner: LiteLLMModel, workers: ModelWorkers) -> None:
        self.inner, self.workers = inner, workers
        self.model, self.api_base = inner.model, inner.api_base
        self._spec = spec_of(inner)

    def __repr__(self) -> str:
        return f"WorkerModel({self.inner!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        return await self.workers.call(self._spec, request, answer_within(self.inner, request))


def answer_within(model: LiteLLMModel, request: ModelRequest) -> float:
    """The longest ``model.generate(request)`` can take: every attempt to its timeout, every wait between
    them at its longest (a ``Retry-After`` is capped at ``max_retry_after_s``, plus its jitter)."""
    retries = max(model.max_retries, 0)
    waits = retries * max(model.max_backoff_s, model.max_retry_after_s + model.backoff_base_s)
    return (retries + 1) * request.timeout_seconds + waits

