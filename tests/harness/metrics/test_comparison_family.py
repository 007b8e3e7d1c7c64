"""metrics.duckdb keeps each comparison's family-adjusted p and its family (X-41, O-10) by their own migration:
a database written before gains the columns, empty for the comparisons it holds."""

from __future__ import annotations

from pathlib import Path

import duckdb

from harness.metrics import MIGRATIONS, ComparisonRow, MetricsWriter, migrate, table_columns

NAME = "m009_comparison_family"


def test_m009_adds_the_adjusted_p_and_family_to_a_database_written_before(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    names = [name for name, _ in MIGRATIONS]
    before = names[:names.index(NAME)]
    for name, step in MIGRATIONS:
        if name in before:
            step(con)
    con.execute("INSERT INTO comparisons (experiment_id, stage_id, group_id, other_id, passes, n, other_passes, "
                "other_n, p_value, test, alpha, separable) VALUES ('old', 'simple', 'B', 'A', 3, 3, 0, 3, 0.03125, "
                "'boschloo', 0.05, true)")
    con.execute("CREATE TABLE migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)")
    con.executemany("INSERT INTO migrations VALUES (?, now()::TIMESTAMP)", [[n] for n in before])
    assert migrate(con) == names[names.index(NAME):]
    assert {"adjusted_p", "family"} <= set(table_columns(con, "comparisons"))
    assert con.execute("SELECT p_value, adjusted_p, family FROM comparisons").fetchall() == [(0.03125, None, None)]
    con.close()


def test_rows_carry_their_adjusted_p_and_family(tmp_path: Path) -> None:
    with MetricsWriter.open(tmp_path / "m.duckdb", "e") as writer:
        writer.write("comparisons", [ComparisonRow(
            experiment_id="e", stage_id="simple", group_id="B", other_id="A", passes=9, n=20, other_passes=1,
            other_n=20, p_value=0.0045, test="boschloo", alpha=0.05, adjusted_p=0.012, family="findings",
            separable=True)])
        rows = writer.con.execute("SELECT p_value, adjusted_p, family, separable FROM comparisons").fetchall()
    assert rows == [(0.0045, 0.012, "findings", True)]
