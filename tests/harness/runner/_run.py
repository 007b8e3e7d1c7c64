"""Shared helpers: run the fixed plan (or a variant) in process, read its outputs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import duckdb

from harness.models import Prices
from harness.plan import parse_plan
from harness.runner import RunOutcome, RunRequest, Settings, execute

FIXED_PLAN = Path(__file__).parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"


def plan_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXED_PLAN.read_text(encoding="utf-8"))
    return data


def run_plan(out: Path, model: str = "scripted/oracle", data: dict[str, Any] | None = None, *,
             resume: bool = False, prices: dict[str, Prices] | None = None, on_trial: Any = None,
             render: bool = False, **settings: Any) -> RunOutcome:
    plan, sha = parse_plan(data or plan_data())
    request = RunRequest(plan=plan, plan_sha256=sha, plan_path=str(FIXED_PLAN),
                         settings=Settings(agent_model=model, maintainer_model=model, **settings),
                         out_dir=out, resume=resume, cli_prices=prices or {}, render=render)
    return asyncio.run(execute(request, on_trial=on_trial))


def outcomes(outcome: RunOutcome) -> dict[str, dict[str, str]]:
    """group → stage → status, from report.json as written."""
    report = json.loads((outcome.run_dir / "report.json").read_text(encoding="utf-8"))
    return {g["id"]: {s["id"]: s["status"] for s in g["stages"]} for g in report["groups"]}


def query(run_dir: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(run_dir / "metrics.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


READBACKS = ("fold_readback", "compression_readback")
UNIFIED = ("A", "B", "C", "v2", "v1")
ORACLE_OUTCOMES = {g: {"simple": "passed", "tool_continuation": "passed", "conversation": "passed"}
                   for g in UNIFIED} | {"prefix": {"conversation": "passed"}}
"""group → stage → status of scripted/oracle on the fixed plan (and the base of the fault models')."""
