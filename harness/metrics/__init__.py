"""metrics.duckdb (O-10 … O-12): schema by named migrations, typed rows, batched writer, views, exports.
Comparing runs side by side is ``harness.workflows``."""

from ._export import EXPORTS, FORMATS, ExportError, export_runs
from ._path import METRICS_FILE, metrics_path
from ._rows import (
    ROW_MODELS,
    CheckRow,
    ComparisonRow,
    ExperimentRow,
    LlmCallRow,
    RequestSegmentRow,
    RunRow,
    ToolCallRow,
    TrialRow,
)
from ._schema import MIGRATIONS, TABLES, applied_migrations, migrate, table_columns
from ._views import VIEWS
from ._writer import MetricsWriter

__all__ = [
    "EXPORTS", "FORMATS", "METRICS_FILE", "MIGRATIONS", "ROW_MODELS", "TABLES", "VIEWS",
    "CheckRow", "ComparisonRow", "ExperimentRow", "ExportError", "LlmCallRow", "MetricsWriter", "RequestSegmentRow",
    "RunRow", "ToolCallRow", "TrialRow",
    "applied_migrations", "export_runs", "metrics_path", "migrate", "table_columns",
]
