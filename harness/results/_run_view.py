"""What assembling report.json (O-2) reads of a finished or stopped experiment: the plan, the
settings the CLI chose, the budget ledger, the price table, the trial records and the stage outcomes.

A structural type, so the results package reads the runner's experiment without importing the
runner (the runner sits above it and hands its ``Experiment`` in).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from harness.plan import BudgetSpec, GroupSpec, Plan, StageStatus

from ._models import Spent
from ._records import TrialRecord


class RunSettings(Protocol):
    @property
    def agent_model(self) -> str: ...

    @property
    def maintainer_model(self) -> str: ...

    @property
    def api_base(self) -> str | None: ...

    @property
    def groups(self) -> list[str] | None: ...

    @property
    def stages(self) -> list[str] | None: ...

    @property
    def cache_dir(self) -> Path | None: ...


class Ledger(Protocol):
    @property
    def limits(self) -> BudgetSpec: ...

    @property
    def stop_detail(self) -> str | None: ...

    def snapshot(self) -> Spent: ...


class Prices(Protocol):
    @property
    def entries(self) -> dict[str, Any]: ...

    def unpriced(self, models: list[str]) -> list[str]: ...

    def note(self, model: str) -> str: ...

    def wire(self, models: list[str]) -> dict[str, Any]: ...


class AgentCalls(Protocol):
    """What every agent call sent besides its messages (``harness.runner.AgentCalls``)."""

    @property
    def extra(self) -> dict[str, Any]: ...

    @property
    def max_output_tokens(self) -> int | None: ...

    @property
    def thinking_budget(self) -> int | None: ...

    @property
    def unsent(self) -> Sequence[Any]: ...

    @property
    def maintainer_unsent(self) -> Sequence[Any]: ...


class RunView(Protocol):
    """An experiment as report.json's assembly reads it (``harness.runner.Experiment`` is one)."""

    @property
    def plan(self) -> Plan: ...

    @property
    def settings(self) -> RunSettings: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def prices(self) -> Prices: ...

    @property
    def store(self) -> Any: ...

    @property
    def agent_calls(self) -> AgentCalls: ...

    @property
    def records(self) -> list[TrialRecord]: ...

    @property
    def outcomes(self) -> dict[tuple[str, str], StageStatus]: ...

    def selected_groups(self) -> list[GroupSpec]: ...

    def stage_records(self, group_id: str, stage_id: str) -> list[TrialRecord]: ...

    def decided(self, group_id: str, stage_id: str) -> dict[int, TrialRecord]: ...
