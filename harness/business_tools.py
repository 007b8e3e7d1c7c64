"""The fixed scenario's business tools (X-60 "The fixed scenario"): deterministic and pure.

``quote_calculate`` prices equipment plus installation, ``schedule_plan`` counts workdays
(Monday to Friday) and ``budget_lookup`` reads project budgets from plan data. Model mistakes
(bad JSON, arguments failing the schema, unknown tools, unknown projects) come back as structured
results ``{"success": false, "error": {...}}`` and never raise (E-6); only a bad ``projects``
mapping given by the plan raises, at construction.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from protocols import JsonRejected, loads_strict

Number = int | float


def _number(value: Decimal) -> Number:
    """Integral amounts stay integers (6900, not 6900.0); others keep two decimals."""
    return int(value) if value == value.to_integral_value() else float(round(value, 2))


def _dec(value: Number) -> Decimal:
    return Decimal(str(value))


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QuoteArgs(_Args):
    unitPrice: float = Field(ge=0, description="Price of one unit of equipment.")
    quantity: int = Field(ge=1, le=1_000_000, description="Number of units.")
    installFeePerUnit: float = Field(ge=0, description="Installation fee per unit.")


class ScheduleArgs(_Args):
    startDate: str = Field(description="Earliest start date, YYYY-MM-DD.")
    workdays: int = Field(ge=1, le=3660, description="Number of workdays (Monday to Friday) needed.")

    @field_validator("startDate")
    @classmethod
    def _iso_date(cls, value: str) -> str:
        try:
            parsed = date.fromisoformat(value)
        except ValueError as exc:
            raise ValueError("startDate must be a date written YYYY-MM-DD") from exc
        if parsed.isoformat() != value:
            raise ValueError("startDate must be a date written YYYY-MM-DD")
        return value


class BudgetLookupArgs(_Args):
    projectId: str = Field(min_length=1, description="Project id, e.g. P-17.")


class ProjectBudget(BaseModel):
    """Plan data for one project."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: float = Field(ge=0)
    spent: float = Field(ge=0)


# pure functions ------------------------------------------------------------------------------
def quote(unit_price: Number, quantity: int, install_fee_per_unit: Number) -> dict[str, Number]:
    equipment = _dec(unit_price) * quantity
    installation = _dec(install_fee_per_unit) * quantity
    return {
        "equipment": _number(equipment),
        "installation": _number(installation),
        "total": _number(equipment + installation),
    }


def _next_workday(day: date) -> date:
    while day.weekday() >= 5:  # 5 = Saturday, 6 = Sunday
        day += timedelta(days=1)
    return day


def schedule(start: date, workdays: int) -> tuple[date, date]:
    """First and last workday of ``workdays`` consecutive workdays from ``start`` (a weekend start
    moves to Monday)."""
    first = _next_workday(start)
    last = first
    for _ in range(workdays - 1):
        last = _next_workday(last + timedelta(days=1))
    return first, last


# the tool set --------------------------------------------------------------------------------
_DESCRIPTIONS = {
    "quote_calculate": "Compute a quote: equipment = unitPrice × quantity, installation = "
    "installFeePerUnit × quantity, and the total.",
    "schedule_plan": "Plan work over workdays (Monday to Friday): returns the first and last workday.",
    "budget_lookup": "Look up a project's budget, amount spent and remaining budget.",
}


_SCHEMAS = [
    {
        "type": "function",
        "function": {"name": name, "description": _DESCRIPTIONS[name], "parameters": args.model_json_schema()},
    }
    for name, args in (("quote_calculate", QuoteArgs), ("schedule_plan", ScheduleArgs),
                       ("budget_lookup", BudgetLookupArgs))
]


def _error(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message, **details}}


class BusinessTools:
    """The business tools of one plan; ``projects`` is the plan's project data."""

    def __init__(self, projects: dict[str, Any]) -> None:
        self._projects = {pid: ProjectBudget.model_validate(data) for pid, data in projects.items()}
        self._tools: dict[str, tuple[type[_Args], Callable[[Any], dict[str, Any]]]] = {
            "quote_calculate": (QuoteArgs, self._quote),
            "schedule_plan": (ScheduleArgs, self._schedule),
            "budget_lookup": (BudgetLookupArgs, self._budget),
        }

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI tool schemas; parameters are the argument models' JSON Schema (built once: every
        step of every run sends them)."""
        return copy.deepcopy(_SCHEMAS)

    def call(self, name: str, arguments_json: str) -> dict[str, Any]:
        if name not in self._tools:
            return _error("unknown_tool", f"no business tool named {name!r}", tool=name, knownTools=self.names)
        args_model, handler = self._tools[name]
        try:
            raw = loads_strict(arguments_json)
        except (JsonRejected, TypeError) as exc:  # duplicate keys, NaN, 1e999, deep nesting too
            return _error("invalid_arguments", f"arguments: {exc}", tool=name, fields=[])
        if not isinstance(raw, dict):
            return _error("invalid_arguments", "arguments must be a JSON object", tool=name, fields=[])
        try:
            args = args_model.model_validate(raw)
        except ValidationError as exc:
            problems = [
                {"field": ".".join(str(part) for part in err["loc"]) or "(root)", "message": err["msg"]}
                for err in exc.errors(include_url=False)
            ]
            fields = [p["field"] for p in problems]
            detail = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
            return _error("invalid_arguments", f"arguments do not match the schema: {detail}",
                          tool=name, fields=fields, errors=problems)
        return handler(args)

    def _quote(self, args: QuoteArgs) -> dict[str, Any]:
        return {"success": True, **quote(args.unitPrice, args.quantity, args.installFeePerUnit)}

    def _schedule(self, args: ScheduleArgs) -> dict[str, Any]:
        first, last = schedule(date.fromisoformat(args.startDate), args.workdays)
        return {"success": True, "startDate": first.isoformat(), "endDate": last.isoformat(),
                "workdays": args.workdays}

    def _budget(self, args: BudgetLookupArgs) -> dict[str, Any]:
        project = self._projects.get(args.projectId)
        if project is None:
            return _error("project_not_found", f"no project with id {args.projectId!r}",
                          projectId=args.projectId)
        budget, spent = _dec(project.budget), _dec(project.spent)
        return {"success": True, "projectId": args.projectId, "budget": _number(budget),
                "spent": _number(spent), "remaining": _number(budget - spent)}
