"""Results of a run (O-2, O-10): the report.json and sweep.json models, their assembly from the trial
records, and the rows of metrics.duckdb. Rendering them for people is ``harness.rendering``."""

from ._differences import differs_in, group_differences, summarize, word_diff
from ._json import ReportError, read_report, write_json_atomic, write_report
from ._models import (
    SCHEMA_VERSION,
    BudgetReport,
    CheckResult,
    GroupReport,
    ModelInfo,
    ModelPrice,
    NotExercised,
    PassRate,
    PlanRef,
    ProtocolInfo,
    Report,
    ReportStatus,
    RunReport,
    Spent,
    StageReport,
    ToolCallRecord,
    TrialMetrics,
    TrialReport,
    TrialStatus,
    distinct_answers,
    unknown_usd,
)
from ._panel import GroupDifference, WordChange
from ._records import TrialRecord, trial_id
from ._sweep import (
    SWEEP_FILE,
    SWEEP_SCHEMA_VERSION,
    SweepBudget,
    SweepCell,
    SweepModelRun,
    SweepReport,
    is_sweep,
    read_sweep,
    write_sweep,
)
from ._workflow import (
    ERROR_CLASS_KINDS,
    INFRA_KIND_WORDS,
    INFRA_KINDS,
    NOT_RETRIED_KINDS,
    SETUP_KINDS,
    ExpectationResult,
    GroupInfrastructure,
    Override,
    kinds_text,
)

__all__ = [
    "ERROR_CLASS_KINDS", "INFRA_KINDS", "INFRA_KIND_WORDS", "NOT_RETRIED_KINDS", "SETUP_KINDS",
    "SCHEMA_VERSION", "SWEEP_FILE", "SWEEP_SCHEMA_VERSION",
    "ExpectationResult", "GroupInfrastructure", "Override", "kinds_text",
    "BudgetReport", "CheckResult", "GroupDifference", "GroupReport", "ModelInfo", "ModelPrice", "NotExercised",
    "PassRate", "PlanRef", "ProtocolInfo", "Report", "ReportError", "ReportStatus", "RunReport", "Spent",
    "StageReport", "ToolCallRecord", "TrialMetrics", "TrialReport", "TrialStatus", "WordChange", "SweepBudget",
    "SweepCell", "SweepModelRun", "SweepReport", "differs_in", "distinct_answers", "is_sweep",
    "read_report", "read_sweep", "summarize", "unknown_usd", "word_diff", "write_json_atomic",
    "write_report", "write_sweep", "TrialRecord", "trial_id", "group_differences",
]
