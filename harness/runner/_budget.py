"""The budget ledger (X-20 … X-22): an asyncio-locked ``CallGuard`` over every model call of a run.

Before a call the ledger reserves its worst case (prompt tokens × a safety margin, plus the per-call
output cap, priced) against every cap at once; the call is not made when any cap would be crossed.
After the call the reservation is replaced by what the call really used: the provider-reported
usage. Concurrent trials share one ledger, so together they can never overshoot a cap (X-21, Q-12).

The prompt estimate is litellm's token counter, and a provider's count is not that: another
tokenizer, a chat template that adds (or drops) text. So the ledger calibrates per model: after
every call it keeps the largest ratio reported / estimated input tokens seen so far in the run
(never below 1; a resume restores it from calls.jsonl), and later reservations use estimate × ratio ×
margin. Until a model's first usage report, only one call of that model is in flight (the probe), so
at most that one call is reserved on the raw estimate (in-process ``scripted/*`` models count with
the harness's own counter: no probe). A context-length refusal is a set-up error, not a transient
fault: the ledger stops the run at once with ``context_limit`` and says what to change
(``context_limit_detail``).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.engine import BudgetExhausted
from harness.models import ModelCallError, ModelOutput, ModelRequest, Usage, context_sizes
from harness.plan import BudgetSpec
from harness.results import Spent as ReportSpent

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
    """What the run has used so far: report.json's ``budget.spent``, readable by cap name. ``usd``
    counts priced calls only (a model without a price adds 0 here; the report says unknown)."""

    usd: float = 0.0

    def value(self, cap: str) -> float:
        if cap == "totalTokens":
            return self.inputTokens + self.outputTokens
        return float(getattr(self, cap) or 0.0)


@dataclass
class _Held:
    """What the reservations in flight hold (plain attributes: two updates of each per model call)."""

    usd: float = 0.0
    inputTokens: int = 0
    outputTokens: int = 0
    llmCalls: int = 0


@dataclass
class Reservation:
    model: str
    usd: float
    input_tokens: int
    output_tokens: int
    estimate: int = 0
    """The harness's own prompt-token estimate (before calibration and margin)."""
    probe: bool = False
    """The model's uncalibrated call in flight: other calls of the model wait for its usage report."""
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
    stop_detail: str | None = None
    """What the stop means and how to fix it, when its name is not enough (``context_limit``)."""
    stop_refusals: int = 0
    """Model calls refused because the run was asked to stop (a stop that refused none and skipped no
    trial came after the last trial: ``Experiment.stopped_anything``)."""
    calibration: dict[str, float] = field(default_factory=dict)
    """model → the largest reported / estimated input-token ratio seen in this run (>= 1)."""
    _probing: set[str] = field(default_factory=set)
    _reserved: _Held = field(default_factory=_Held)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _base_wall: float = 0.0
    on_settle: Callable[[dict[str, Any]], None] | None = None
    """Called under the lock with every settled call (the run directory persists it, X-81)."""

    def __post_init__(self) -> None:
        self._changed = asyncio.Condition(self._lock)

    def restore(self, spent: Spent, calibration: dict[str, float] | None = None) -> None:
        """Resume (X-81): what earlier processes of this run already spent counts against the caps, and
        the ratios they learnt calibrate this one's reservations from its first call."""
        self.spent = spent.model_copy()
        self._base_wall = spent.wallSeconds
        for model, ratio in (calibration or {}).items():
            self.calibration[model] = max(1.0, ratio, self.calibration.get(model, 1.0))

    def wall_seconds(self) -> float:
        return self._base_wall + time.monotonic() - self.started

    def request_stop(self, reason: str, detail: str | None = None) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            self.stop_detail = detail

    def factor(self, model: str) -> float:
        """How much the provider counted above the estimate for this model so far (>= 1)."""
        return max(1.0, self.calibration.get(model, 1.0))

    def worst_case(self, model: str, request: ModelRequest, prompt_tokens: int) -> Reservation:
        tokens_in = math.ceil(prompt_tokens * self.factor(model) * self.margin)
        tokens_out = request.max_output_tokens or 0
        usd = self.prices.cost(model, Usage(input_tokens=tokens_in, output_tokens=tokens_out))
        return Reservation(model=model, usd=usd, input_tokens=tokens_in, output_tokens=tokens_out,
                           estimate=prompt_tokens)

    @staticmethod
    def _needs_probe(model: str) -> bool:
        """In-process scripted models count their usage with the harness's own token counter (X-60):
        there is nothing to calibrate, so their calls start concurrently from the first."""
        return not model.startswith("scripted/")

    def _may_start(self, model: str) -> bool:
        return (model in self.calibration or model not in self._probing or not self._needs_probe(model)
                or self.stop_reason is not None or self.exhausted is not None)

    async def reserve(self, role: str, model: str, request: ModelRequest, prompt_tokens: int) -> Any:
        async with self._changed:
            await self._changed.wait_for(lambda: self._may_start(model))
            if self.stop_reason is not None:
                self.stop_refusals += 1
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
            if model not in self.calibration and self._needs_probe(model):
                wanted.probe = True
                self._probing.add(model)
            return wanted

    async def settle(self, reservation: Any, output: ModelOutput | None, error: ModelCallError | None = None) -> None:
        """Replace the reservation by the provider-reported usage; ``error``: why the call failed."""
        if not isinstance(reservation, Reservation) or reservation.settled:
            return
        async with self._changed:
            reservation.settled = True
            self._reserved.usd -= reservation.usd
            self._reserved.inputTokens -= reservation.input_tokens
            self._reserved.outputTokens -= reservation.output_tokens
            self._reserved.llmCalls -= 1
            if reservation.probe:
                self._probing.discard(reservation.model)
            self._changed.notify_all()
            if output is not None and output.cache_key is not None:  # served from --cache: nothing spent
                self.spent.cachedResponses += 1
                if self.on_settle is not None:
                    self.on_settle({"model": reservation.model, "ok": True, "cached": True, "usd": 0.0,
                                    "wallSeconds": round(self.wall_seconds(), 3)})
                return
            if error is not None and not error.sent:  # refused by the run's memo: no request went out
                return
            self.spent.llmCalls += 1  # a failed call was still made
            usage, source = Usage(), "none"
            if output is not None:
                usage, source = self._usage(reservation, output)
            usd = self.prices.cost(reservation.model, usage)  # once: the spent total and the call's record
            if output is not None:
                self.spent.usd += usd
                self.spent.inputTokens += usage.input_tokens
                self.spent.cachedInputTokens += usage.cached_input_tokens
                self.spent.outputTokens += usage.output_tokens
            if error is not None and error.kind == "context_window":
                self.request_stop("context_limit", context_limit_detail(reservation, error.message))
            if self.on_settle is not None:
                self.on_settle({"model": reservation.model, "ok": output is not None, "usd": usd,
                                "inputTokens": usage.input_tokens, "cachedInputTokens": usage.cached_input_tokens,
                                "outputTokens": usage.output_tokens, "estimatedInputTokens": reservation.estimate,
                                "usage": source, "wallSeconds": round(self.wall_seconds(), 3)})

    def _usage(self, reservation: Reservation, output: ModelOutput) -> tuple[Usage, str]:
        """What the call spent: the provider's usage, which also calibrates the model's estimate.
        A provider that reports no usage at all is charged the reservation (its worst case), so a
        cap still holds; the call log says so (``usage: reservation``)."""
        usage = output.usage
        if usage.input_tokens <= 0 and usage.output_tokens <= 0:
            return Usage(input_tokens=reservation.input_tokens, output_tokens=reservation.output_tokens), \
                "reservation"
        if reservation.estimate > 0 and usage.input_tokens > 0:
            ratio = usage.input_tokens / reservation.estimate
            self.calibration[reservation.model] = max(1.0, ratio, self.calibration.get(reservation.model, 1.0))
        return usage, "provider"

    def _limit(self, cap: str) -> float:
        return float(getattr(self.limits, CAP_FIELDS[cap]))

    def snapshot(self) -> Spent:
        out = self.spent.model_copy()
        out.wallSeconds = round(self.wall_seconds(), 3)
        return out


def context_limit_detail(reservation: Reservation, message: str) -> str:
    """Why a context-length refusal stops the run, with the sizes involved and the fix."""
    prompt, context = context_sizes(message)
    counted = (f"the server counted {prompt:,} prompt tokens against a context of {context:,}"
               if prompt and context else
               f"the server's limit is {context:,} tokens" if context else "the server did not say its limit")
    return (f"the server refused a request as longer than its context window ({counted}; the harness estimated "
            f"the prompt at ~{reservation.estimate:,} tokens plus up to {reservation.output_tokens:,} output "
            "tokens). Every later request would be refused the same way, so the run stopped. Fix: raise the "
            "server's per-slot context (llama-server splits -c over --parallel slots: -c = slots × per-slot "
            "context; scripts/llama_server.sh sizes it for the fixed plan), lower --concurrency to the server's "
            f"slot count, or run a smaller plan. Server message: {message.rsplit('Exception - ', 1)[-1][:300]}")

