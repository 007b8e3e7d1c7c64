"""Stop conditions (X-30, X-31): budget (the ledger), wall clock (the ledger), an unhealthy provider,
and an interrupt. Every stop goes through ``BudgetLedger.request_stop``: no new trial starts and no
new model call is made, while calls in flight finish and their trials are recorded, so the partial
report is written and the run directory stays resumable.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from harness.results._records import TrialRecord


@dataclass
class InfraMonitor:
    """``maxInfraErrorRate`` over all calls so far, judged only after ``min_calls`` calls (X-31)."""

    max_rate: float | None
    min_calls: int
    calls: int = 0
    errors: int = 0

    def add(self, record: TrialRecord) -> bool:
        """Count a finished trial's calls; True when the provider is now unhealthy."""
        self.calls += record.metrics.llmCalls
        self.errors += record.metrics.infraErrors
        return self.unhealthy

    @property
    def rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0

    @property
    def unhealthy(self) -> bool:
        return self.max_rate is not None and self.calls >= self.min_calls and self.rate > self.max_rate


class Stoppable(Protocol):
    stop_reason: str | None

    def request_stop(self, reason: str, detail: str | None = None) -> None: ...


@dataclass
class StopRequest:
    """What a sweep is asked to do between its models (a ``Stoppable`` for ``interrupt_handlers``)."""

    stop_reason: str | None = None
    stop_detail: str | None = None

    def request_stop(self, reason: str, detail: str | None = None) -> None:
        if self.stop_reason is None:
            self.stop_reason, self.stop_detail = reason, detail


_targets: list[Stoppable] = []
"""Who the handlers installed now stop: the outermost first (a sweep, then its member run's ledger)."""
interrupts = 0
"""SIGINT / SIGTERM received by this process's handlers (``guarded`` tells a second Ctrl-C from a first)."""
_rendering = False


def lone() -> bool:
    """No sweep around the run: its Ctrl-C during the outputs is for this run alone."""
    return len(_targets) <= 1


@contextmanager
def rendering() -> Iterator[None]:
    """Around a report's rendering (report.json is written by then). A lone run's Ctrl-C stops the
    rendering at once (KeyboardInterrupt; ``harness report DIR`` renders later); in a sweep it does
    not: the rendering ends, and the sweep stops before its next model."""
    global _rendering
    _rendering = True
    try:
        yield
    finally:
        _rendering = False


@contextmanager
def interrupt_handlers(target: Stoppable) -> Iterator[None]:
    """SIGINT / SIGTERM ask ``target`` to stop (``interrupted``); a second SIGINT aborts at once.

    Nested (a sweep's member run inside the sweep): one signal stops every level, so a Ctrl-C
    while a model runs, renders its report, or between two models is one graceful stop of the
    sweep, never "twice" (the handlers cover the whole sweep: outside them Python raises
    KeyboardInterrupt). The handler runs synchronously (``signal.signal``, not the event loop), so
    it is seen even while a blocking rendering runs: a sweep's rendering ends and the sweep stops
    before its next model; a lone run's rendering stops at once (``rendering``). ``request_stop``
    only sets fields, so calling it from the handler is safe."""
    if _targets:
        _targets.append(target)
        try:
            yield
        finally:
            _targets.remove(target)
        return
    asyncio.get_running_loop()  # the run's loop: the handlers cover what it runs

    def on_signal(signum: int, _frame: object) -> None:
        global interrupts
        interrupts += 1
        second = any(t.stop_reason == "interrupted" for t in _targets)
        for t in _targets:
            t.request_stop("interrupted")
        if signum == signal.SIGINT and (second or (_rendering and lone())):
            raise KeyboardInterrupt

    previous: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, on_signal)
        except ValueError:  # not the main thread: no signals here
            pass
    _targets.append(target)
    try:
        yield
    finally:
        _targets.remove(target)
        for sig, handler in previous.items():
            # SIGINT outside every run raises KeyboardInterrupt again (unless the process ignores it)
            restore = signal.default_int_handler if sig == signal.SIGINT and handler is not signal.SIG_IGN else handler
            signal.signal(sig, restore)
