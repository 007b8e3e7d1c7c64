"""The narrow interface the plan runner drives (E-15); the local engine is its one implementation."""

from __future__ import annotations

from typing import Any, Protocol

from protocols import dump_state

from ._engine import Engine
from ._types import RunResult


class Target(Protocol):
    def create_session(self, session_id: str | None = None) -> str: ...

    async def run_send_input(self, session_id: str, text: str) -> RunResult: ...

    def snapshots(self, session_id: str) -> list[dict[str, Any]]: ...

    def kv(self, session_id: str) -> dict[str, Any]: ...

    def state(self, session_id: str, run_id: str) -> dict[str, Any]: ...


class LocalTarget:
    """A ``Target`` backed by an in-process ``Engine``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create_session(self, session_id: str | None = None) -> str:
        return self.engine.create_session(session_id)

    async def run_send_input(self, session_id: str, text: str) -> RunResult:
        return await self.engine.run_send_input(session_id, text)

    def snapshots(self, session_id: str) -> list[dict[str, Any]]:
        return [data for _, data in self.engine.store.snapshots(session_id)]

    def kv(self, session_id: str) -> dict[str, Any]:
        return self.engine.store.kv_all(session_id)

    def state(self, session_id: str, run_id: str) -> dict[str, Any]:
        return dump_state(self.engine.store, session_id, self.engine.agent, run_id)
