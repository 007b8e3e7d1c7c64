"""metrics.duckdb ``llm_calls.reasoning_tokens`` / ``cache_write_tokens`` by their own migration (O-10, O-12),
and the report's token totals from a database written before it (read as 0)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from harness.metrics import MIGRATIONS, migrate, table_columns
from harness.rendering._data import _tokens_sql


def test_m007_adds_the_columns_after_the_released_migrations(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    before = [name for name, _ in MIGRATIONS if name != "m007_reasoning_and_cache_writes"]
    for name, step in MIGRATIONS:  # a database as the last release left it
        if name in before:
            step(con)
    assert "reasoning_tokens" not in table_columns(con, "llm_calls")
    assert "sum(c.reasoning_tokens)" not in _tokens_sql(con) and "0 AS reasoning_tokens" in _tokens_sql(con)
    con.execute("CREATE TABLE migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)")
    con.executemany("INSERT INTO migrations VALUES (?, now()::TIMESTAMP)", [[n] for n in before])
    assert migrate(con) == ["m007_reasoning_and_cache_writes"]
    assert {"reasoning_tokens", "cache_write_tokens"} <= set(table_columns(con, "llm_calls"))
    assert "sum(c.reasoning_tokens)" in _tokens_sql(con) and "sum(c.cache_write_tokens)" in _tokens_sql(con)
    con.close()
