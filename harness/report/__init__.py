"""report.json (O-2): the versioned model and its write/read helpers."""

from ._difference_text import differs_in, summarize
from ._differences import GroupDifference, WordChange, word_diff
from ._json import ReportError, read_report, write_json_atomic, write_report
from ._junit import junit_xml, write_junit, xml_safe
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
    INFRA_KIND_WORDS,
    INFRA_KINDS,
    NOT_RETRIED_KINDS,
    ExpectationResult,
    GroupInfrastructure,
    Override,
    kinds_text,
)

__all__ = [
    "INFRA_KINDS", "INFRA_KIND_WORDS", "NOT_RETRIED_KINDS", "SCHEMA_VERSION", "SWEEP_FILE", "SWEEP_SCHEMA_VERSION",
    "ExpectationResult", "GroupInfrastructure", "Override", "kinds_text",
    "BudgetReport", "CheckResult", "GroupDifference", "GroupReport", "ModelInfo", "ModelPrice", "NotExercised",
    "PassRate", "PlanRef", "ProtocolInfo", "Report", "ReportError", "ReportStatus", "RunReport", "Spent",
    "StageReport", "ToolCallRecord", "TrialMetrics", "TrialReport", "TrialStatus", "WordChange", "SweepBudget",
    "SweepCell", "SweepModelRun", "SweepReport", "differs_in", "distinct_answers", "is_sweep", "junit_xml",
    "read_report", "read_sweep", "summarize", "unknown_usd", "word_diff", "write_json_atomic", "write_junit",
    "write_report", "write_sweep", "xml_safe",
]
