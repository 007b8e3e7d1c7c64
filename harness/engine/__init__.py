"""The host: sessions, runs, the step loop, dispatch, maintenance, snapshots (E-1 … E-15)."""

from ._engine import Engine
from ._guard import BudgetExhausted, CallGuard
from ._target import LocalTarget, Target
from ._tokens import SEGMENTS, count_messages, segment_tokens
from ._types import CallRecord, MaintenanceRecord, RunLimits, RunResult, ToolCallRecord

__all__ = [
    "SEGMENTS", "BudgetExhausted", "CallGuard", "CallRecord", "Engine", "LocalTarget",
    "MaintenanceRecord", "RunLimits", "RunResult", "Target", "ToolCallRecord", "count_messages", "segment_tokens",
]
