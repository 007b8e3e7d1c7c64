"""report.json (O-2): the versioned model and its write/read helpers."""

from ._json import ReportError, read_report, write_report
from ._models import (
    SCHEMA_VERSION,
    BudgetReport,
    CheckResult,
    GroupReport,
    ModelInfo,
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
)

__all__ = [
    "SCHEMA_VERSION",
    "BudgetReport", "CheckResult", "GroupReport", "ModelInfo", "PassRate", "PlanRef", "ProtocolInfo", "Report",
    "ReportError", "ReportStatus", "RunReport", "Spent", "StageReport", "ToolCallRecord", "TrialMetrics",
    "TrialReport", "TrialStatus",
    "read_report", "write_report",
]
