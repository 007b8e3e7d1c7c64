"""The budget hook of the step loop (X-21): reserve the worst case before a call, settle after."""

from __future__ import annotations

from typing import Any, Protocol

from harness.models import ModelCallError, ModelOutput, ModelRequest


class BudgetExhausted(Exception):
    """A cap would be crossed by the next call; the call is not made (X-21)."""

    def __init__(self, cap: str, value: float, limit: float) -> None:
        super().__init__(f"budget cap {cap}: {value:g} would exceed the limit {limit:g}")
        self.cap = cap
        self.value = value
        self.limit = limit


class CallGuard(Protocol):
    async def reserve(self, role: str, model: str, request: ModelRequest, prompt_tokens: int) -> Any:
        """Atomically reserve the call's worst case or raise ``BudgetExhausted``."""

    async def settle(self, reservation: Any, output: ModelOutput | None, error: ModelCallError | None = None) -> None:
        """Replace the reservation by what the call really used (nothing if it failed without usage);
        ``error`` says why a failed call failed (a context-length refusal stops the run)."""
