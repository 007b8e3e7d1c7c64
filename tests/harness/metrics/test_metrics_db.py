"""metrics.duckdb: named migrations (O-12), tables (O-10), batched writes (O-12, Q-5), views (O-11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from metrics_data import synthetic_rows

from harness.metrics import (
    MIGRATIONS,
    ROW_MODELS,
    TABLES,
    LlmCallRow,
    MetricsWriter,
    applied_migrations,
    migrate,
    table_columns,
)

O10_COLUMNS = {
    "trials": "experiment_id group_id stage_id repeat trial_id status session_id started_at finished_at",
    "runs": "experiment_id trial_id run_id turn status steps final_answer",
    "llm_calls": "experiment_id trial_id run_id call_seq role model input_tokens cached_input_tokens output_tokens "
                 "usd latency_ms retries status request_sha256",
    "request_segments": "experiment_id trial_id call_seq segment tokens",
    "tool_calls": "experiment_id trial_id run_id step tool_name args_sha256 result_sha256 success error_code repeated "
                  "duplicate_signature",
    "checks": "experiment_id trial_id check_name result detail",
}


def _writer(path: Path | None = None) -> MetricsWriter:
    return MetricsWriter(duckdb.connect(str(path) if path else ":memory:"))


def _fill(writer: MetricsWriter, **kw: Any) -> None:
    for table, rows in synthetic_rows(**kw).items():
        writer.write(table, rows)


def test_o12_migrations_named_recorded_and_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "metrics.duckdb"
    con = duckdb.connect(str(path))
    assert migrate(con) == [name for name, _ in MIGRATIONS]
    assert migrate(con) == []
    assert applied_migrations(con) == [name for name, _ in MIGRATIONS]
    assert applied_migrations(con)[:3] == ["m001_initial", "m002_views", "m003_trial_failure_mode"]
    con.close()
    with MetricsWriter.open(path) as writer:  # reopening migrates nothing and keeps the data model
        assert migrate(writer.con) == []
        assert writer.con.execute("SELECT count(*) FROM migrations").fetchone() == (len(MIGRATIONS),)


def test_o10_tables_have_the_required_columns_and_experiment_id_everywhere() -> None:
    con = _writer().con
    for table, columns in O10_COLUMNS.items():
        assert set(columns.split()) <= set(table_columns(con, table)), table
    for table in TABLES:
        assert "experiment_id" in table_columns(con, table)


def test_row_models_match_the_tables() -> None:
    con = _writer().con
    for table, model in ROW_MODELS.items():
        assert set(model.model_fields) == set(table_columns(con, table)), table


def test_o12_q5_ten_thousand_llm_calls_in_few_statements() -> None:
    """A counting spy on the connection: 10,000 rows take one INSERT, not 10,000."""

    class Spy:
        def __init__(self, con: Any) -> None:
            self._con = con
            self.statements: list[str] = []

        def execute(self, sql: str, *args: Any) -> Any:
            self.statements.append(sql)
            return self._con.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._con, name)

    spy = Spy(duckdb.connect())
    writer = MetricsWriter(spy, experiment_id="exp-1")
    spy.statements.clear()
    rows = [LlmCallRow(experiment_id="exp-1", trial_id=f"A/simple/{i % 3}", run_id="r", call_seq=i, role="agent",
                       model="m", input_tokens=100, output_tokens=10, usd=0.001) for i in range(10_000)]
    assert writer.write("llm_calls", rows) == 10_000
    inserts = [s for s in spy.statements if "INSERT" in s.upper()]
    assert len(inserts) == 1
    assert len(spy.statements) <= 3
    assert spy.execute("SELECT count(*), sum(input_tokens) FROM llm_calls").fetchone() == (10_000, 1_000_000)


def test_o12_batches_split_large_writes() -> None:
    writer = _writer()
    writer.batch_rows = 4
    rows = [{"experiment_id": "e", "trial_id": "t", "call_seq": 1, "segment": "system", "tokens": i} for i in range(10)]
    assert writer.write("request_segments", rows) == 10
    assert writer.con.execute("SELECT sum(tokens) FROM request_segments").fetchone() == (45,)


def test_writer_fills_experiment_id_and_refuses_bad_rows() -> None:
    writer = MetricsWriter(duckdb.connect(), experiment_id="exp-9")
    writer.write("checks", [{"trial_id": "t", "check_name": "run_completed", "result": "passed"}])
    assert writer.con.execute("SELECT experiment_id, detail FROM checks").fetchone() == ("exp-9", "")
    with pytest.raises(ValueError, match="no column"):
        writer.write("checks", [{"trial_id": "t", "check_name": "x", "result": "passed", "colour": 1}])
    with pytest.raises(ValueError, match="unknown metrics table"):
        writer.write("nope", [{"experiment_id": "e"}])
    plain = _writer()
    with pytest.raises(ValueError, match="experiment_id"):
        plain.write("checks", [{"trial_id": "t", "check_name": "x", "result": "passed"}])
    assert plain.write("checks", []) == 0


def test_o11_group_stage_summary_aggregates() -> None:
    writer = _writer()
    _fill(writer)
    cur = writer.con.execute("SELECT * FROM group_stage_summary ORDER BY group_id, stage_id")
    names = [d[0] for d in cur.description]
    rows = {(r["group_id"], r["stage_id"]): r for r in (dict(zip(names, v, strict=True)) for v in cur.fetchall())}
    a = rows[("A", "simple")]
    assert (a["trials"], a["passed"], a["failed"], a["errors"], a["n"]) == (3, 2, 1, 0, 3)
    assert a["pass_rate"] == pytest.approx(2 / 3) and a["pass_hat_k"] == 0.0 and a["k"] == 3
    assert (a["llm_calls"], a["maintainer_calls"]) == (7, 1)
    assert (a["input_tokens"], a["cached_input_tokens"], a["output_tokens"]) == (650, 60, 125)
    assert a["total_tokens"] == 775 and a["usd"] == pytest.approx(0.065)
    assert (a["tool_calls"], a["repeated_tool_calls"], a["duplicate_signature_calls"]) == (3, 1, 2)
    b = rows[("B", "simple")]  # the retried trial counts once, with its last attempt
    assert (b["trials"], b["passed"], b["errors"], b["n"], b["pass_hat_k"]) == (2, 2, 0, 2, 1.0)
    assert b["llm_calls"] == 3 and b["usd"] is None  # one call without a known price → unknown
    p = rows[("prefix", "conversation")]
    assert (p["passed"], p["usd"], p["tool_calls"]) == (1, pytest.approx(0.03), 0)


def test_o11_cost_by_segment() -> None:
    writer = _writer()
    _fill(writer)
    rows = writer.con.execute(
        "SELECT group_id, stage_id, segment, tokens, requests, share FROM cost_by_segment ORDER BY 1, 2, 3"
    ).fetchall()
    assert rows == [
        ("A", "simple", "history", 60, 1, pytest.approx(0.3)),
        ("A", "simple", "state", 20, 1, pytest.approx(0.1)),
        ("A", "simple", "system", 120, 2, pytest.approx(0.6)),
        ("prefix", "conversation", "history", 300, 1, pytest.approx(1.0)),
    ]


def test_views_keep_experiments_apart() -> None:
    writer = _writer()
    _fill(writer, experiment_id="e1")
    _fill(writer, experiment_id="e2")
    rows = writer.con.execute(
        "SELECT experiment_id, passed FROM group_stage_summary WHERE group_id = 'A' ORDER BY 1"
    ).fetchall()
    assert rows == [("e1", 2), ("e2", 2)]
