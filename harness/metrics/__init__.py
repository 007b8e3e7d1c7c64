"""metrics.duckdb (O-10 … O-13): schema by named migrations, batched writer, views, run comparison."""

from ._compare import METRICS_FILE, RunSummary, load_runs, metrics_path, replays
from ._export import EXPORTS, FORMATS, ExportError, export_runs
from ._repro import Replay
from ._rows import (
    ROW_MODELS,
    CheckRow,
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
    "EXPORTS", "FORMATS", "METRICS_FILE", "MIGRATIONS", "ExportError", "export_runs", "ROW_MODELS", "TABLES", "VIEWS",
    "CheckRow", "ExperimentRow", "LlmCallRow", "MetricsWriter", "Replay", "RequestSegmentRow", "RunRow", "RunSummary",
    "ToolCallRow", "TrialRow",
    "applied_migrations", "load_runs", "metrics_path", "migrate", "replays", "table_columns",
]
