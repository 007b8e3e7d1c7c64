"""Rows given column by column (``MetricsWriter.write_columns``) are checked as their row models check them and
written as the same rows written one model at a time (``MetricsWriter.write``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import duckdb
import pytest
from metrics_data import synthetic_rows

from harness.metrics import TABLES, MetricsWriter
from harness.metrics._schema import tables_columns


def _columns(rows: list[Any]) -> dict[str, list[Any]]:
    """The rows' fields as columns, only those a row set (a default left out is the writer's to fill)."""
    names = list(dict.fromkeys(name for row in rows for name in row.model_fields_set))
    return {name: [getattr(row, name) for row in rows] for name in names}


def _tables(con: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}


def test_columns_write_the_rows_the_row_models_write() -> None:
    rows = synthetic_rows("exp-1")
    east = timezone(timedelta(hours=8))
    rows["trials"][0] = rows["trials"][0].model_copy(update={"started_at": datetime(2026, 10, 5, 20, 0, tzinfo=east),
                                                             "finished_at": None})
    by_rows, by_columns = MetricsWriter(duckdb.connect()), MetricsWriter(duckdb.connect(), experiment_id="exp-1")
    for table, table_rows in rows.items():
        by_rows.write(table, table_rows)
        columns = _columns(table_rows)
        if table == "llm_calls":  # left out: the writer fills it
            columns.pop("experiment_id")
        assert by_columns.write_columns(table, columns) == len(table_rows)
    assert _tables(by_columns.con) == _tables(by_rows.con)
    started = by_columns.con.execute("SELECT started_at FROM trials WHERE trial_id = 'A/simple/1'").fetchone()
    assert started == (datetime(2026, 10, 5, 12, 0),)  # 20:00 at +08:00, held as UTC


def test_columns_are_checked_like_rows() -> None:
    writer = MetricsWriter(duckdb.connect(), experiment_id="e")
    call: dict[str, list[Any]] = {
        "trial_id": ["t", "t"], "run_id": [None, "r"], "call_seq": [1, "2"], "role": ["agent", "maintainer"],
        "model": ["m", "m"], "input_tokens": [1, 2], "output_tokens": [3, 4], "usd": [None, 0.5]}
    assert writer.write_columns("llm_calls", call) == 2
    written = writer.con.execute("SELECT call_seq, status, failed_attempts, cached FROM llm_calls ORDER BY ALL")
    assert written.fetchall() == [(1, "ok", [], False), (2, "ok", [], False)]  # "2" coerced as LlmCallRow does
    refused: list[tuple[dict[str, Any], str]] = [
        ({**call, "role": ["agent", "user"]}, "llm_calls.role"),
        ({**call, "call_seq": [1, "two"]}, "llm_calls.call_seq"),
        ({**call, "colour": [1, 2]}, "no column"),
        ({**call, "model": ["m"]}, "unequal length"),
        ({k: v for k, v in call.items() if k != "model"}, "llm_calls.model is required"),
    ]
    for columns, message in refused:
        with pytest.raises(ValueError, match=message):
            writer.write_columns("llm_calls", columns)
    with pytest.raises(ValueError, match="unknown metrics table"):
        writer.write_columns("nope", {"experiment_id": ["e"]})
    with pytest.raises(ValueError, match="experiment_id"):
        MetricsWriter(duckdb.connect()).write_columns("checks", {"trial_id": ["t"], "check_name": ["x"],
                                                                 "result": ["passed"]})
    assert writer.write_columns("checks", {"trial_id": [], "check_name": [], "result": []}) == 0
    assert writer.con.execute("SELECT count(*) FROM llm_calls").fetchone() == (2,)  # nothing refused was written


def test_every_tables_columns_in_one_query_are_each_tables_own() -> None:
    con = MetricsWriter(duckdb.connect()).con
    con.execute("CREATE TABLE other (z INTEGER, a VARCHAR)")
    asked = [*TABLES, "other", "missing"]
    each = {t: [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                          "ORDER BY ordinal_position", [t]).fetchall()] for t in asked}
    assert tables_columns(con, asked) == each
    assert each["other"] == ["z", "a"] and each["missing"] == [] and all(each[t] for t in TABLES)
