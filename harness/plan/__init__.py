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
from ._expect import STAGE_STATUSES, SYNTAX, Expectation, StageStatus, conflict, parse_expectation
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
from ._semantics import expectation_problem
from ._sequential_checks import sequential_pairs
from ._sequential_spec import SequentialSpec

__all__ = [
    "BUSINESS_TOOLS", "STAGE_STATUSES", "SYNTAX", "TRIAL_CHECKS", "TURN_CHECKS", "AgentSpec", "AnswerContains",
    "AnswerNotContains", "BudgetSpec", "CompressionReadback", "conflict", "contains_date", "contains_number",
    "contains_regex", "contains_text", "Expectation", "expectation_problem", "find_numbers", "FindingsSpec",
    "FoldReadback", "GroupSpec", "json_path", "load_plan", "MemoryPreserved", "mentions", "ModelsSpec",
    "parse_expectation", "parse_json", "parse_plan", "Plan", "plan_json_schema", "plan_json_schema_text",
    "plan_sha256", "PlanError", "Price", "price_problems", "ProjectData", "ProtocolRef", "RunCompleted",
    "SameSession", "Sampling",
    "SequentialSpec", "sequential_pairs", "StageSpec", "StageStatus", "StateInEveryRequest", "StopSpec", "ToolCalled",
    "ToolNotCalled", "TrialCheck", "Turn", "TurnCheck", "WindowMismatchRecovered",
]
