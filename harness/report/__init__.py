"""report.json (O-2): the versioned model and its write/read helpers."""

from ._json import ReportError, read_report, write_json_atomic, write_report
from ._models import (
    SCHEMA_VERSION,
    BudgetReport,
    CheckResult,
    GroupReport,
    ModelInfo,
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
)
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

__all__ = [
    "SCHEMA_VERSION", "SWEEP_FILE", "SWEEP_SCHEMA_VERSION",
    "BudgetReport", "CheckResult", "GroupReport", "ModelInfo", "NotExercised", "PassRate", "PlanRef", "ProtocolInfo",
    "Report",
    "ReportError", "ReportStatus", "RunReport", "Spent", "StageReport", "ToolCallRecord", "TrialMetrics",
    "TrialReport", "TrialStatus", "SweepBudget", "SweepCell", "SweepModelRun", "SweepReport",
    "distinct_answers", "is_sweep", "read_report", "read_sweep", "write_json_atomic", "write_report", "write_sweep",
]
