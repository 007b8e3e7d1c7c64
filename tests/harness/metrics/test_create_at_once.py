"""A run's metrics.duckdb is written in one transaction (``MetricsWriter.create``): the same schema, views,
migrations and rows as a database migrated and written step by step; an exception keeps nothing of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from metrics_data import synthetic_rows

from harness.metrics import MIGRATIONS, TABLES, MetricsWriter, migrate


def _content(path: Path) -> dict[str, Any]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        schema = con.execute("SELECT table_name, column_name, data_type, is_nullable, column_default "
                             "FROM information_schema.columns WHERE table_schema = 'main' "
                             "ORDER BY table_name, ordinal_position").fetchall()
        views = con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal "
                            "ORDER BY view_name").fetchall()
        rows = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}
        view_rows = {v: con.execute(f"SELECT * FROM {v} ORDER BY ALL").fetchall() for v, _ in views}
        return {"schema": schema, "views": views, "rows": rows, "view_rows": view_rows,
                "migrations": [r[0] for r in con.execute("SELECT name FROM migrations ORDER BY name").fetchall()]}
    finally:
        con.close()


def test_a_database_written_at_once_is_the_one_written_step_by_step(tmp_path: Path) -> None:
    rows = synthetic_rows()
    with MetricsWriter.open(tmp_path / "steps.duckdb") as writer:
        for table, batch in rows.items():
            writer.write(table, batch)
    with MetricsWriter.create(tmp_path / "once.duckdb") as writer:
        for table, batch in rows.items():
            writer.write(table, batch)
    once = _content(tmp_path / "once.duckdb")
    assert once == _content(tmp_path / "steps.duckdb")
    assert once["migrations"] == [name for name, _ in MIGRATIONS]
    assert all(once["rows"][t] for t in ("trials", "llm_calls", "checks"))
    con = duckdb.connect(str(tmp_path / "once.duckdb"))
    assert migrate(con) == []  # a later open migrates nothing
    con.close()


def test_an_exception_keeps_nothing_and_an_existing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "metrics.duckdb"
    with pytest.raises(RuntimeError), MetricsWriter.create(path) as writer:
        writer.write("trials", synthetic_rows()["trials"])
        raise RuntimeError("the disk")
    con = duckdb.connect(str(path))
    assert con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main'").fetchone() == (0,)
    con.close()
    with pytest.raises(FileExistsError):
        MetricsWriter.create(path)


def test_migrations_in_one_transaction_record_each_missing_one_once_at_the_transaction_start(tmp_path: Path) -> None:
    """The rows ``migrate(in_transaction=True)`` writes: one per migration applied now, in ``MIGRATIONS`` order, each
    ``applied_at`` the transaction's start (DuckDB's ``now()``), the rows of migrations applied before untouched."""
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    migrate(con)
    before = con.execute("SELECT name, applied_at FROM migrations ORDER BY name").fetchall()
    con.execute(f"DELETE FROM migrations WHERE name >= '{MIGRATIONS[3][0]}'")
    con.execute("CREATE SCHEMA again")  # the later migrations run again on fresh tables in a schema of their own
    con.execute("USE again")
    con.execute("CREATE TABLE migrations AS SELECT * FROM main.migrations")
    for _name, step in MIGRATIONS[:3]:
        step(con)
    con.execute("BEGIN TRANSACTION")
    [(start,)] = con.execute("SELECT now()::TIMESTAMP").fetchall()
    assert migrate(con, in_transaction=True) == [name for name, _ in MIGRATIONS[3:]]
    con.execute("COMMIT")
    rows = con.execute("SELECT name, applied_at FROM migrations ORDER BY rowid").fetchall()
    assert rows == before[:3] + [(name, start) for name, _ in MIGRATIONS[3:]]
    assert migrate(con, in_transaction=True) == []
    con.close()
