"""Batched writes into metrics.duckdb (O-12, Q-5): one INSERT per batch, never one per row.

Rows (pydantic models or dicts) become a pandas DataFrame that DuckDB scans in a single
``INSERT INTO <table> BY NAME SELECT * FROM <frame>``; columns a row leaves out get their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import duckdb
from pydantic import BaseModel

from ._schema import TABLES, migrate, table_columns

if TYPE_CHECKING:
    import pandas as pd

BATCH_ROWS = 100_000


def _plain(row: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    data = row.model_dump() if isinstance(row, BaseModel) else dict(row)
    for key, value in data.items():
        if isinstance(value, datetime) and value.tzinfo is not None:
            data[key] = value.astimezone(UTC).replace(tzinfo=None)  # TIMESTAMP columns hold UTC
    return data


class MetricsWriter:
    """Writes rows to one metrics database; ``experiment_id`` fills rows that lack it."""

    def __init__(self, con: Any, experiment_id: str | None = None, batch_rows: int = BATCH_ROWS) -> None:
        self.con = con
        self.experiment_id = experiment_id
        self.batch_rows = batch_rows
        migrate(con)
        self._columns = {t: table_columns(con, t) for t in TABLES}

    @classmethod
    def open(cls, path: str | Path, experiment_id: str | None = None) -> MetricsWriter:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(duckdb.connect(str(path)), experiment_id)

    def write(self, table: str, rows: Sequence[BaseModel | Mapping[str, Any]]) -> int:
        """Insert ``rows`` into ``table`` in batches; returns the number of rows written."""
        if table not in self._columns:
            raise ValueError(f"unknown metrics table {table!r}; tables are {', '.join(TABLES)}")
        if not rows:
            return 0
        records = [_plain(r) for r in rows]
        if self.experiment_id is not None:
            for rec in records:
                rec.setdefault("experiment_id", self.experiment_id)
        import pandas as pd  # a second's import: only where rows are written, not for every command

        frame = pd.DataFrame.from_records(records)
        unknown = set(frame.columns) - set(self._columns[table])
        if unknown:
            raise ValueError(f"{table} has no column(s) {', '.join(sorted(unknown))}")
        if "experiment_id" not in frame.columns or frame["experiment_id"].isna().any():
            raise ValueError(f"every {table} row needs an experiment_id")
        for start in range(0, len(frame), self.batch_rows):
            self._insert(table, frame.iloc[start : start + self.batch_rows])
        return len(frame)

    def _insert(self, table: str, frame: pd.DataFrame) -> None:
        name = f"_batch_{table}"
        self.con.register(name, frame)
        try:
            self.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {name}")
        finally:
            self.con.unregister(name)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> MetricsWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
