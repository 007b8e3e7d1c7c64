"""The plan's JSON Schema (X-1), generated from the pydantic models; ``plans/plan.schema.json``."""

from __future__ import annotations

import json
from typing import Any

from ._models import Plan

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def plan_json_schema() -> dict[str, Any]:
    schema = Plan.model_json_schema(by_alias=True, mode="validation")
    schema["title"] = "Experiment plan (placement harness)"
    return {"$schema": SCHEMA_DIALECT, **schema}


def plan_json_schema_text() -> str:
    """The schema as written to disk: stable key order, two-space indent, final newline."""
    return json.dumps(plan_json_schema(), ensure_ascii=False, indent=2) + "\n"
