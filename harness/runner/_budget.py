"""The budget ledger (X-20 … X-22): an asyncio-locked ``CallGuard`` over every model call of a run.

Before a call the ledger reserves its worst case (prompt tokens × a safety margin, plus the per-call
output cap, priced) against every cap at once; the call is not made when any cap would be crossed.
After the call the reservation is replaced by what the call really used. Concurrent trials share
one ledger, so together they can never overshoot a cap (X-21, Q-12).

The margin exists because a provider's token count is not litellm's estimate of it: reserving a
little more than the estimate keeps ``spent <= cap`` true even when the provider counts higher.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.engine import BudgetExhausted
from harness.models import ModelOutput, ModelRequest, Usage
from harness.plan import BudgetSpec
from harness.report import Spent as ReportSpent

from ._prices import PriceTable

CAP_FIELDS: dict[str, str] = {
    "usd": "maxUsd",
    "inputTokens": "maxInputTokens",
    "outputTokens": "maxOutputTokens",
    "totalTokens": "maxTotalTokens",
    "llmCalls": "maxLlmCalls",
}
"""Cap name (as in ``stopReason: budget_exhausted:<cap>``) → the plan's budget field."""


class StopRequested(Exception):
    """The experiment is stopping (interrupt, wall clock, provider unhealthy): no new call starts."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the experiment is stopping: {reason}")
        self.reason = reason


class Spent(ReportSpent):
    """What the run has used so far: report.json's ``budget.spent``, readable by cap name."""

    def value(self, cap: str) -> float:
        if cap == "totalTokens":
            return self.inputTokens + self.outputTokens
        return float(getattr(self, cap))


@dataclass
class Reservation:
    model: str
    usd: float
    input_tokens: int
    output_tokens: int
    settled: bool = False


@dataclass
class BudgetLedger:
    """The one ``CallGuard`` of a run. ``stop`` is set by the runner's stop conditions."""

    limits: BudgetSpec
    prices: PriceTable
    margin: float = 1.1
    started: float = field(default_factory=time.monotonic)
    spent: Spent = field(default_factory=Spent)
    exhausted: str | None = None
    """The cap that refused a call, once one has."""
    stop_reason: str | None = None
    _reserved: Spent = field(default_factory=Spent)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _base_wall: float = 0.0
    on_settle: Callable[[dict[str, Any]], None] | None = None
    """Called under the lock with every settled call (the run directory persists it, X-81)."""

    def restore(self, spent: Spent) -> None:
        """Resume (X-81): what earlier processes of this run already spent counts against the caps."""
        self.spent = spent.model_copy()
        self._base_wall = spent.wallSeconds

    def wall_seconds(self) -> float:
        return self._base_wall + time.monotonic() - self.started

    def request_stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    def worst_case(self, model: str, request: ModelRequest, prompt_tokens: int) -> Reservation:
        tokens_in = math.ceil(prompt_tokens * self.margin)
        tokens_out = request.max_output_tokens or 0
        usd = self.prices.cost(model, Usage(input_tokens=tokens_in, output_tokens=tokens_out))
        return Reservation(model=model, usd=usd, input_tokens=tokens_in, output_tokens=tokens_out)

    async def reserve(self, role: str, model: str, request: ModelRequest, prompt_tokens: int) -> Any:
        async with self._lock:
            if self.stop_reason is not None:
                raise StopRequested(self.stop_reason)
            if self.limits.maxWallSeconds is not None and self.wall_seconds() >= self.limits.maxWallSeconds:
                self.request_stop("wall_clock")
                raise StopRequested("wall_clock")
            if self.exhausted is not None:
                raise BudgetExhausted(self.exhausted, self.spent.value(self.exhausted), self._limit(self.exhausted))
            wanted = self.worst_case(model, request, prompt_tokens)
            after = {
                "usd": self.spent.usd + self._reserved.usd + wanted.usd,
                "inputTokens": self.spent.inputTokens + self._reserved.inputTokens + wanted.input_tokens,
                "outputTokens": self.spent.outputTokens + self._reserved.outputTokens + wanted.output_tokens,
                "llmCalls": self.spent.llmCalls + self._reserved.llmCalls + 1,
            }
            after["totalTokens"] = after["inputTokens"] + after["outputTokens"]
            for cap, limit_field in CAP_FIELDS.items():
                limit = getattr(self.limits, limit_field)
                if limit is not None and after[cap] > limit:
                    self.exhausted = cap
                    raise BudgetExhausted(cap, after[cap], limit)
            self._reserved.usd += wanted.usd
            self._reserved.inputTokens += wanted.input_tokens
            self._reserved.outputTokens += wanted.output_tokens
            self._reserved.llmCalls += 1
            return wanted

    async def settle(self, reservation: Any, output: ModelOutput | None) -> None:
        if not isinstance(reservation, Reservation) or reservation.settled:
            return
        async with self._lock:
            reservation.settled = True
            self._reserved.usd -= reservation.usd
            self._reserved.inputTokens -= reservation.input_tokens
            self._reserved.outputTokens -= reservation.output_tokens
            self._reserved.llmCalls -= 1
            if output is not None and output.cache_key is not None:  # served from --cache: nothing spent
                self.spent.cachedResponses += 1
                if self.on_settle is not None:
                    self.on_settle({"model": reservation.model, "ok": True, "cached": True, "usd": 0.0,
                                    "wallSeconds": round(self.wall_seconds(), 3)})
                return
            self.spent.llmCalls += 1  # a failed call was still made
            if output is not None:
                usage = output.usage
                self.spent.usd += self.prices.cost(reservation.model, usage)
                self.spent.inputTokens += usage.input_tokens
                self.spent.cachedInputTokens += usage.cached_input_tokens
                self.spent.outputTokens += usage.output_tokens
            if self.on_settle is not None:
                usage = output.usage if output is not None else Usage()
                self.on_settle({"model": reservation.model, "ok": output is not None,
                                "usd": self.prices.cost(reservation.model, usage),
                                "inputTokens": usage.input_tokens, "cachedInputTokens": usage.cached_input_tokens,
                                "outputTokens": usage.output_tokens, "wallSeconds": round(self.wall_seconds(), 3)})

    def _limit(self, cap: str) -> float:
        return float(getattr(self.limits, CAP_FIELDS[cap]))

    def snapshot(self) -> Spent:
        out = self.spent.model_copy()
        out.wallSeconds = round(self.wall_seconds(), 3)
        return out

