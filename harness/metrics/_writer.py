"""Batched writes into metrics.duckdb (O-12, Q-5): one INSERT per batch, never one per row.

Rows (pydantic models or dicts, ``write``) become one list per column, or come as columns
(``write_columns``: a run's trials, each column checked once against its row model, ``_columns``), bound as
parameters of a single ``INSERT INTO <table> BY NAME SELECT unnest($1) AS <column>, …``: DuckDB converts each
list in one pass and inserts the batch at once. Columns no row has get their defaults; a column some rows leave out is
NULL in those rows. Not a pandas DataFrame (or an Arrow table, whose construction imports pandas too):
pandas' import costs more CPU than writing every table of a run (Q-4), and the bulk path is DuckDB's
either way (Q-5: 10,000 rows well under the bound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
from pydantic import BaseModel

from ._columns import checked_columns, datetime_columns
from ._schema import TABLES, migrate, tables_columns

BATCH_ROWS = 100_000


def _plain(row: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    data = row.model_dump() if isinstance(row, BaseModel) else dict(row)
    for key, value in data.items():
        if isinstance(value, datetime):
            data[key] = _utc(value)
    return data


def _utc(value: Any) -> Any:
    """TIMESTAMP columns hold UTC: an aware datetime in UTC without its zone; anything else as it is."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


class MetricsWriter:
    """Writes rows to one metrics database; ``experiment_id`` fills rows that lack it."""

    def __init__(self, con: Any, experiment_id: str | None = None, batch_rows: int = BATCH_ROWS,
                 in_transaction: bool = False) -> None:
        self.con = con
        self.experiment_id = experiment_id
        self.batch_rows = batch_rows
        self._transaction = in_transaction
        """The caller's transaction holds everything written: committed by ``close`` (``create``)."""
        migrate(con, in_transaction=in_transaction)
        self._columns = tables_columns(con, TABLES)

    @classmethod
    def open(cls, path: str | Path, experiment_id: str | None = None) -> MetricsWriter:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(duckdb.connect(str(path)), experiment_id)

    @classmethod
    def create(cls, path: str | Path, experiment_id: str | None = None) -> MetricsWriter:
        """A new database at ``path`` (none may be there) written in one transaction, schema and rows: one
        commit (one sync of DuckDB's log) instead of one per migration and per insert; ``close`` commits it, a
        writer left by an exception keeps nothing of it (Q-3: the run's outputs come after its last call)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if Path(path).exists():
            raise FileExistsError(path)
        con = duckdb.connect(str(path))
        con.execute("BEGIN TRANSACTION")
        try:
            return cls(con, experiment_id, in_transaction=True)
        except BaseException:
            con.execute("ROLLBACK")
            con.close()
            raise

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
        names = list(dict.fromkeys(key for rec in records for key in rec))  # every row's keys, in order
        return self._insert(table, {name: [rec.get(name) for rec in records] for name in names})

    def write_columns(self, table: str, columns: Mapping[str, Sequence[Any]]) -> int:
        """Insert rows given column by column (name → one value per row), each column checked against the
        table's row model (``checked_columns``); ``experiment_id`` filled when left out. Returns the number of
        rows written. Cheaper than ``write`` for many rows: no model, dict or transposition per row."""
        if table not in self._columns:
            raise ValueError(f"unknown metrics table {table!r}; tables are {', '.join(TABLES)}")
        n = len(next(iter(columns.values()), ()))
        if not n:
            return 0
        if "experiment_id" not in columns and self.experiment_id is not None:
            columns = {"experiment_id": [self.experiment_id] * n, **columns}
        data = checked_columns(table, columns)
        for name in datetime_columns(table):
            data[name] = [_utc(v) for v in data[name]]
        return self._insert(table, data)

    def _insert(self, table: str, data: dict[str, list[Any]]) -> int:
        """One ``INSERT … BY NAME SELECT unnest($1) …`` per batch of ``data``'s rows."""
        names = list(data)
        unknown = set(names) - set(self._columns[table])
        if unknown:
            raise ValueError(f"{table} has no column(s) {', '.join(sorted(unknown))}")
        if any(v is None for v in data.get("experiment_id", [None])):
            raise ValueError(f"every {table} row needs an experiment_id")
        n = len(data["experiment_id"])
        sql = (f"INSERT INTO {table} BY NAME SELECT "
               + ", ".join(f'unnest(${i}) AS "{name}"' for i, name in enumerate(names, start=1)))
        for start in range(0, n, self.batch_rows):
            self.con.execute(sql, [values[start : start + self.batch_rows] for values in data.values()])
        return n

    def close(self) -> None:
        if self._transaction:
            self._transaction = False
            self.con.execute("COMMIT")
        self.con.close()

    def __enter__(self) -> MetricsWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None and self._transaction:
            self._transaction = False
            self.con.execute("ROLLBACK")
        self.close()
