"""How a model worker starts: forked from the runner's process, or a fresh interpreter (``HARNESS_WORKER_START``).

A fresh interpreter (``python -m harness.models.workers._worker``) imports litellm again: about 2 s of CPU per
worker, once per worker start (Q-3). A worker forked from the runner, once the runner has imported litellm
itself, starts with litellm already imported and configured (``ensure_litellm``'s settings and its own copy
of the ``RequestCapture``) and pays none of that: the run imports litellm once, whatever the number of workers.

``HARNESS_WORKER_START``: ``auto`` (the default) forks on Linux (``os.pidfd_open``: the runner's event loop
learns of the worker's exit without a watcher thread) when the runner's process runs one Python thread, so
no lock of another Python thread can be held in the child; else, and on any other platform, it spawns. A
thread outside Python (OpenBLAS's pool, which numpy starts) is made safe by its library's own fork
handlers. ``fork`` forks whatever the threads (the child gets stdio objects of its own, so an inherited
stdio lock cannot stall it), ``spawn`` always spawns. Both run the same ``_worker.serve_fds``.

A forked child keeps no open file of the runner's: every descriptor but its two pipes and stdio is pointed
at ``/dev/null`` (``dup2``, so its number stays taken and a finalizer of an inherited object can never close
a descriptor the child opened since). Another worker's stdin therefore still ends when the runner closes
it, and a socket of the runner's is not held open by the child. The runner's objects are frozen in the
child (``gc.freeze``): the child never collects, or finalizes, what the runner made.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, Protocol

START_ENV = "HARNESS_WORKER_START"
STARTS = ("auto", "fork", "spawn")
UNKNOWN_EXIT = 255
"""The exit code said of a forked worker whose exit status another waiter of this process collected first."""


class StartError(ValueError):
    """``HARNESS_WORKER_START`` holds no known start, or asks for ``fork`` where this platform cannot."""


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class WorkerProcess(Protocol):
    """What the pool uses of a worker's process: ``asyncio.subprocess.Process`` and ``ForkedProcess`` both."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def stdin(self) -> Writer | None: ...

    @property
    def stdout(self) -> asyncio.StreamReader | None: ...

    async def wait(self) -> int: ...

    def kill(self) -> None: ...


@functools.cache
def fork_supported() -> bool:
    """Linux with pidfds (kernel 5.3+): a forked worker's exit wakes the event loop through its pidfd."""
    if sys.platform != "linux" or not hasattr(os, "pidfd_open") or not hasattr(signal, "pidfd_send_signal"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


def start_method(given: str | None = None) -> str:
    """``fork`` or ``spawn`` for the next worker: ``given`` (or ``HARNESS_WORKER_START``) resolved as the module
    doc says. ``StartError`` names the variable for a value it does not know, or ``fork`` where it cannot."""
    source = "start" if given is not None else START_ENV
    value = (given if given is not None else os.environ.get(START_ENV, "auto")).strip().lower() or "auto"
    if value not in STARTS:
        raise StartError(f"{source}={value!r}: expected one of {', '.join(STARTS)}")
    if value == "fork" and not fork_supported():
        raise StartError(f"{source}=fork: forking a model worker needs Linux with pidfds (os.pidfd_open); "
                         "use spawn")
    if value == "auto":
        return "fork" if fork_supported() and threading.active_count() == 1 else "spawn"
    return value


class ForkedProcess:
    """A forked worker as the pool sees it: pid, its stdin (a pipe transport) and stdout (a stream reader),
    its exit code once its pidfd said it ended and it was reaped, ``wait`` and ``kill``."""

    def __init__(self, pid: int, stdin: asyncio.WriteTransport, stdout: asyncio.StreamReader) -> None:
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None
        self._loop = asyncio.get_running_loop()
        self._exit: asyncio.Future[int] = self._loop.create_future()
        self._pidfd: int | None = os.pidfd_open(pid)
        self._loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped by another waiter (a library's waitpid(-1)): its status is gone
            pid, status = self.pid, UNKNOWN_EXIT << 8
        if pid == 0:  # woken before the exit can be collected
            return
        self._close_pidfd()
        self.returncode = os.waitstatus_to_exitcode(status)
        if not self._exit.done():
            self._exit.set_result(self.returncode)

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    async def wait(self) -> int:
        return await asyncio.shield(self._exit)  # one waiter cancelled leaves the exit to the others

    def kill(self) -> None:
        if self.returncode is not None or self._pidfd is None:
            raise ProcessLookupError(self.pid)
        signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)


async def fork_worker(serve: Callable[[int, int], int]) -> ForkedProcess:
    """Fork this process; the child runs ``serve(in_fd, out_fd)`` (the frames' pipes) and exits with what it
    returns, never returning into the runner's code. Call it once litellm is imported (``ensure_litellm``)."""
    loop = asyncio.get_running_loop()
    down_r, down_w = os.pipe()  # runner → worker
    up_r, up_w = os.pipe()  # worker → runner
    for stream in (sys.stdout, sys.stderr):  # buffered text would otherwise be written twice, once by the child
        _flush(stream)
    pid = os.fork()
    if pid == 0:
        _child(down_r, up_w, serve)
    os.close(down_r)
    os.close(up_w)
    reader = asyncio.StreamReader()
    files = [os.fdopen(up_r, "rb", 0), os.fdopen(down_w, "wb", 0)]
    transports: list[asyncio.BaseTransport] = []
    try:
        read, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), files[0])
        transports.append(read)
        writer, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, files[1])
        transports.append(writer)
        return ForkedProcess(pid, writer, reader)
    except BaseException:  # cancelled (Ctrl-C) or out of descriptors: no child nobody would ever talk to or reap
        for transport in transports:
            transport.close()
        for file in files:
            file.close()
        os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise


def _child(in_fd: int, out_fd: int, serve: Callable[[int, int], int]) -> NoReturn:
    code = 1
    try:
        os.setsid()  # its own session, as a spawned worker: a terminal's signals reach the runner only
        signal.set_wakeup_fd(-1)  # the runner's event loop's, which this process must never write to
        for signum in signal.valid_signals():
            if callable(signal.getsignal(signum)):  # a handler of the runner's (its loop's, Ctrl-C's)
                signal.signal(signum, signal.SIG_DFL)
        _release_inherited({0, 1, 2, in_fd, out_fd})
        gc.freeze()
        sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        code = serve(in_fd, out_fd)
    except BaseException:  # whatever it is, the child ends here, never in the runner's code
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # stderr itself is gone: the exit code still says it failed
            pass
    finally:
        os._exit(code)


def _release_inherited(keep: set[int]) -> None:
    """Point every inherited descriptor but ``keep`` at /dev/null (see the module doc)."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd in keep or fd == null:
                continue
            os.dup2(null, fd, inheritable=False)  # the listing's own (closed by now) becomes /dev/null too
    finally:
        os.close(null)


def _flush(stream: Any) -> None:
    try:
        stream.flush()
    except (AttributeError, OSError, ValueError):
        pass
