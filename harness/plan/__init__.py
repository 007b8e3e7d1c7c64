"""Experiment plans (X-1 … X-5): pydantic models, loading with JSON-path errors, check definitions
and the answer matching they use."""

from ._checks_spec import (
    TRIAL_CHECKS,
    TURN_CHECKS,
    AnswerContains,
    AnswerNotContains,
    CompressionReadback,
    FoldReadback,
    MemoryPreserved,
    RunCompleted,
    SameSession,
    StateInEveryRequest,
    ToolCalled,
    ToolNotCalled,
    TrialCheck,
    TurnCheck,
    WindowMismatchRecovered,
)
from ._jsonschema import plan_json_schema, plan_json_schema_text
from ._load import PlanError, json_path, load_plan, parse_json, parse_plan, plan_sha256
from ._matching import contains_date, contains_number, contains_regex, contains_text, find_numbers, mentions
from ._models import (
    BUSINESS_TOOLS,
    AgentSpec,
    BudgetSpec,
    FindingsSpec,
    GroupSpec,
    ModelsSpec,
    Plan,
    Price,
    ProjectData,
    ProtocolRef,
    Sampling,
    StageSpec,
    StopSpec,
    Turn,
)
from ._prices import price_problems

__all__ = [
    "BUSINESS_TOOLS", "TRIAL_CHECKS", "TURN_CHECKS",
    "AgentSpec", "AnswerContains", "AnswerNotContains", "BudgetSpec", "CompressionReadback", "FindingsSpec",
    "FoldReadback", "GroupSpec", "MemoryPreserved", "ModelsSpec", "Plan", "PlanError", "Price", "ProjectData",
    "ProtocolRef", "RunCompleted", "SameSession", "Sampling", "StageSpec", "StateInEveryRequest", "StopSpec",
    "ToolCalled", "ToolNotCalled", "TrialCheck", "Turn", "TurnCheck", "WindowMismatchRecovered",
    "contains_date", "contains_number", "contains_regex", "contains_text", "find_numbers", "json_path",
    "load_plan", "mentions", "parse_json", "parse_plan", "plan_json_schema", "plan_json_schema_text",
    "plan_sha256", "price_problems",
]
