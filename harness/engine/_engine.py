"""The host (E-1 … E-3, E-5, E-6, E-11 … E-14): sessions, runs, the step loop.

``Engine`` is the host's one entry point: its settings, sessions and snapshots (``_host``), and the runs
(``_run``: the step loop, dispatch, recovery, capacity, maintenance; ``_call``: each model call accounted
and snapshotted).
"""

from __future__ import annotations

from protocols import new_run_id

from ._host import EngineBase
from ._run import Run
from ._types import MaintenanceRecord, RunLimits, RunResult


class Engine(EngineBase):
    """One protocol, one agent, one model; any number of sessions in one store."""

    async def run_send_input(self, session_id: str, text: str, limits: RunLimits | None = None) -> RunResult:
        """E-1: the only way a user turn enters a session. ``limits``: this run's, instead of the engine's
        (the runner gives each repeat of a trial its own sampling seed)."""
        return await Run(self, session_id, new_run_id(), text, limits).start()

    async def maintain(self, session_id: str, step: int = 0) -> MaintenanceRecord:
        """Explicit maintenance of the active window (P-50: e.g. after a stage completes)."""
        run = Run(self, session_id, new_run_id(), "")
        return await run.maintain(step, trigger="explicit")
