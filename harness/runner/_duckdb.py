"""metrics.duckdb for a run (O-10 … O-12), used while ``harness.metrics`` (the metrics engineer's
schema with named migrations and views) is not in the tree; ``_outputs`` prefers that module.

Tables are created from explicit column lists and filled from pandas frames, one batch per table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

COLUMNS: dict[str, dict[str, str]] = {
    "trials": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "group_id": "VARCHAR", "stage_id": "VARCHAR",
               "repeat": "INTEGER", "attempt": "INTEGER", "status": "VARCHAR", "reason": "VARCHAR",
               "session_id": "VARCHAR", "started_at": "VARCHAR", "finished_at": "VARCHAR"},
    "runs": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "run_id": "VARCHAR", "turn": "INTEGER",
             "status": "VARCHAR", "steps": "INTEGER", "final_answer": "VARCHAR"},
    "llm_calls": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "run_id": "VARCHAR", "call_seq": "INTEGER",
                  "role": "VARCHAR", "model": "VARCHAR", "input_tokens": "BIGINT", "cached_input_tokens": "BIGINT",
                  "output_tokens": "BIGINT", "usd": "DOUBLE", "latency_ms": "DOUBLE", "retries": "INTEGER",
                  "status": "VARCHAR", "request_sha256": "VARCHAR"},
    "request_segments": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "call_seq": "INTEGER",
                         "segment": "VARCHAR", "tokens": "BIGINT"},
    "tool_calls": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "run_id": "VARCHAR", "step": "INTEGER",
                   "tool_name": "VARCHAR", "args_sha256": "VARCHAR", "result_sha256": "VARCHAR",
                   "success": "BOOLEAN", "error_code": "VARCHAR", "repeated": "BOOLEAN",
                   "duplicate_signature": "BOOLEAN"},
    "checks": {"experiment_id": "VARCHAR", "trial_id": "VARCHAR", "check_name": "VARCHAR", "result": "VARCHAR",
               "detail": "VARCHAR", "turn": "INTEGER"},
}

VIEWS = {
    "group_stage_summary": """
        SELECT t.experiment_id, t.group_id, t.stage_id,
               count(*) FILTER (WHERE t.status = 'passed') AS passed,
               count(*) FILTER (WHERE t.status IN ('passed', 'failed')) AS decided,
               count(*) FILTER (WHERE t.status = 'passed')::DOUBLE
                 / nullif(count(*) FILTER (WHERE t.status IN ('passed', 'failed')), 0) AS pass_rate,
               coalesce(sum(c.input_tokens), 0) AS input_tokens, coalesce(sum(c.output_tokens), 0) AS output_tokens,
               coalesce(sum(c.usd), 0) AS usd, coalesce(sum(k.repeated), 0) AS repeated_tool_calls
        FROM trials t
        LEFT JOIN (SELECT trial_id, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
                          sum(usd) AS usd FROM llm_calls GROUP BY trial_id) c USING (trial_id)
        LEFT JOIN (SELECT trial_id, count(*) FILTER (WHERE repeated) AS repeated FROM tool_calls GROUP BY trial_id) k
          USING (trial_id)
        GROUP BY ALL""",
    "cost_by_segment": """
        SELECT s.experiment_id, t.group_id, t.stage_id, s.segment, sum(s.tokens) AS tokens
        FROM request_segments s JOIN trials t USING (trial_id) GROUP BY ALL""",
}


def write_duckdb(path: Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    import duckdb
    import pandas as pd

    path.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE TABLE schema_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP DEFAULT now())")
        con.execute("INSERT INTO schema_migrations (name) VALUES ('m001_runner_tables')")
        for table, columns in COLUMNS.items():
            con.execute(f"CREATE TABLE {table} (" + ", ".join(f"{c} {t}" for c, t in columns.items()) + ")")
            rows = tables.get(table) or []
            if rows:
                frame = pd.DataFrame(rows, columns=list(columns))  # noqa: F841 (read by DuckDB by name)
                con.execute(f"INSERT INTO {table} SELECT * FROM frame")
        for name, sql in VIEWS.items():
            con.execute(f"CREATE VIEW {name} AS {sql}")
    finally:
        con.close()
