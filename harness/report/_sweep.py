"""sweep.json: one plan run once per model into one directory (``harness run PLAN --model M1 --model M2``).

``D/<slug>/`` holds each model's ordinary run directory (report.json, metrics.duckdb, …);
``D/sweep.json`` is this model: what ran, the shared budget, the model × group × stage table and
the findings across models. It is rewritten after every model, so an interrupted sweep says how
far it got, and ``harness run PLAN --resume D`` continues it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.analysis import ModelKind, StageStatus, SweepFinding
from harness.plan import BudgetSpec

from ._json import ReportError, write_json_atomic
from ._models import PlanRef, Spent
from ._workflow import ExpectationResult

SWEEP_SCHEMA_VERSION: Literal[1] = 1
SWEEP_FILE = "sweep.json"

ModelRunStatus = Literal["pending", "completed", "stopped", "failed", "not_run"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SweepModelRun(_Model):
    model: str
    maintainer: str
    slug: str = Field(description="The model's run directory under the sweep directory.")
    kind: ModelKind
    status: ModelRunStatus
    stopReason: str | None = None
    limits: BudgetSpec | None = Field(None, description="The caps this model's run had: the sweep's remainder.")
    spent: Spent = Spent()
    findingRule: str | None = Field(None, description="The rule of the model's own first finding (X-40).")
    expectations: list[ExpectationResult] = Field(
        default_factory=list, description="The CI gate on this model's run: every model must meet every expectation.")


class SweepCell(_Model):
    """One model × group × stage, from that model's report.json."""

    model: str
    group: str
    stage: str
    status: StageStatus
    passes: int = 0
    n: int = 0
    passRate: float | None = None
    wilson95: tuple[float, float] | None = None
    failureModes: dict[str, int] = Field(default_factory=dict, description="Failed trials by failure mode.")
    distinctAnswers: int | None = None
    inputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = 0.0
    llmCalls: int = 0
    cachedResponses: int = 0


class SweepBudget(_Model):
    limits: BudgetSpec
    spent: Spent = Spent()


class SweepReport(_Model):
    schemaVersion: Literal[1] = SWEEP_SCHEMA_VERSION
    kind: Literal["sweep"] = "sweep"
    harnessVersion: str
    createdAt: datetime
    updatedAt: datetime
    status: Literal["running", "completed", "stopped"]
    stopReason: str | None = None
    plan: PlanRef
    groups: list[str] = Field(default_factory=list, description="Group ids in plan order.")
    stages: list[str] = Field(default_factory=list, description="Stage ids in plan order.")
    budget: SweepBudget
    overrides: dict[str, Any] = Field(
        default_factory=dict, description="--temperature / --seed / --repeats every model ran with (a resume keeps "
                                          "them).")
    models: list[SweepModelRun]
    table: list[SweepCell] = Field(default_factory=list)
    findings: list[SweepFinding] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


def write_sweep(sweep: SweepReport, directory: Path) -> Path:
    return write_json_atomic(sweep.model_dump_json(indent=2) + "\n", directory / SWEEP_FILE)


def is_sweep(directory: Path) -> bool:
    return (directory / SWEEP_FILE).is_file()


def read_sweep(directory: Path) -> SweepReport:
    path = directory / SWEEP_FILE
    try:
        return SweepReport.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{directory} is not a sweep directory (no {SWEEP_FILE})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read {path}: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReportError(f"{path} is not a valid sweep ({exc.error_count()} problem(s); first: {where}: "
                          f"{first['msg']})") from None
