"""Where a run keeps its metrics database (O-10): ``metrics.duckdb`` in the run directory."""

from __future__ import annotations

from pathlib import Path

from protocols import InvalidInput

METRICS_FILE = "metrics.duckdb"
def metrics_path(run: str | Path) -> Path:
    """A run directory (holding metrics.duckdb) or the database file itself."""
    path = Path(run)
    db = path / METRICS_FILE if path.is_dir() else path
    if not db.is_file():
        raise InvalidInput(f"{run}: no {METRICS_FILE} here (expected a run directory written by `harness run`)")
    return db
