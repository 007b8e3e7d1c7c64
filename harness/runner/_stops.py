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

from ._budget import BudgetLedger
from ._records import TrialRecord


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


@contextmanager
def interrupt_handlers(ledger: BudgetLedger) -> Iterator[None]:
    """SIGINT / SIGTERM ask the run to stop (``interrupted``); a second SIGINT aborts at once."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []

    def on_signal(sig: signal.Signals) -> None:
        if ledger.stop_reason == "interrupted" and sig == signal.SIGINT:
            raise KeyboardInterrupt
        ledger.request_stop("interrupted")

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal, sig)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            pass
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
