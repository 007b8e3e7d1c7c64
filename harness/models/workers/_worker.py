"""A model worker process (``python -m harness.models.workers._worker``, or forked from the runner: ``_fork``).

It imports litellm the harness's way (``ensure_litellm``: the same settings and the same ``RequestCapture``; a
forked worker has them from the runner already), then reads call frames from its pipe from the runner and runs
each call as its own task on one event loop, so one worker carries many calls at once: ``LiteLLMModel.generate``
whole (the provider body captured and redacted, the adapter's retries and backoff), exactly as the runner
process would run it. Each reply goes back on its pipe to the runner (a spawned worker's original stdin and
stdout); anything printed meanwhile (litellm, warnings) goes to stderr, never into the frames.

It ignores Ctrl-C (the runner stops the run gracefully and then closes the workers) and lives in its own
session, so a terminal's signals reach the runner only. It exits when its stdin ends: when the runner
closes it, or when the runner's process is gone whatever the reason, so a worker never outlives its run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import traceback
from collections.abc import Callable
from functools import partial
from typing import Any

from harness import run_collector

from .._errors import ModelCallError
from .._litellm import LiteLLMModel
from .._redact import redact_text, scanned_clean, secrets_from_env
from .._setup import ensure_litellm
from .._types import ModelRequest
from ._frames import Spec, error_frame, frame, model_of, read_frame

EXIT_GRACE_S = 2.0
"""How long the calls still running when stdin ends get to see their cancellation before the process exits."""


async def _call(call_id: int, spec: Spec, request: ModelRequest, models: dict[Spec, LiteLLMModel],
                send: Callable[[tuple[Any, ...]], None]) -> None:
    try:
        model = models.get(spec)
        if model is None:
            model = models[spec] = model_of(spec)
        output = await model.generate(request)
    except ModelCallError as exc:
        send(error_frame(call_id, exc))
    except Exception:  # a host defect: the runner re-raises it as one
        send(("defect", call_id, redact_text(traceback.format_exc(), secrets_from_env())))
    else:
        send(("ok", call_id, output, scanned_clean(output.provider_request_json)))


def _forget(tasks: dict[int, asyncio.Task[None]], call_id: int, _task: asyncio.Task[None]) -> None:
    tasks.pop(call_id, None)


async def serve(in_fd: int, out_fd: int) -> None:
    ensure_litellm()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(in_fd, "rb", 0))
    transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, os.fdopen(out_fd, "wb", 0))

    def send(message: tuple[Any, ...]) -> None:
        try:
            data = frame(message)
        except Exception:  # e.g. an output that does not pickle: the call's defect, not the worker's
            data = frame(("defect", message[1], redact_text(traceback.format_exc(), secrets_from_env())))
        if not transport.is_closing():
            transport.write(data)

    send(("ready", os.getpid()))
    models: dict[Spec, LiteLLMModel] = {}
    tasks: dict[int, asyncio.Task[None]] = {}
    while (message := await read_frame(reader)) is not None:
        if message[0] == "call":
            _, call_id, spec, request = message
            task = asyncio.create_task(_call(call_id, spec, request, models, send))
            tasks[call_id] = task
            task.add_done_callback(partial(_forget, tasks, call_id))
        elif message[0] == "cancel":
            running = tasks.get(message[1])
            if running is not None:
                running.cancel()
    for task in list(tasks.values()):
        task.cancel()
    if tasks:
        await asyncio.wait(list(tasks.values()), timeout=EXIT_GRACE_S)


def serve_fds(in_fd: int, out_fd: int) -> int:
    """Serve the frames on ``in_fd`` / ``out_fd`` until ``in_fd`` ends; the exit code (1: it failed, on stderr).
    A spawned worker (``main``) and a forked one (``_fork.fork_worker``) both run this: fd 0 becomes
    /dev/null and fd 1 stderr, so that a print cannot corrupt the frames."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    code = 0
    try:
        with run_collector():  # the worker lives as long as its run (harness.run_collector)
            asyncio.run(serve(in_fd, out_fd))
    except BaseException:  # reported on stderr; the runner sees the exit code
        traceback.print_exc(file=sys.stderr)
        code = 1
    sys.stderr.flush()
    return code


def main() -> None:
    # The frames use the original stdin / stdout.
    code = serve_fds(os.dup(0), os.dup(1))
    os._exit(code)  # litellm's threads never hold the process after its stdin ended


if __name__ == "__main__":
    main()
