"""The metrics.duckdb schema as named migrations (O-10, O-12), recorded in ``migrations``.

A migration is never edited once released: a change is a new ``mNNN_<what>`` function appended
to ``MIGRATIONS``. ``migrate`` applies the missing ones in order, each in its own transaction (all in
the caller's, for a new file written at once), so running it twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import duckdb

from ._views import VIEWS


def m001_initial(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""
        CREATE TABLE experiments (
            experiment_id VARCHAR NOT NULL, plan_id VARCHAR NOT NULL, plan_sha256 VARCHAR NOT NULL,
            model_agent VARCHAR NOT NULL, model_maintainer VARCHAR NOT NULL, model_kind VARCHAR NOT NULL,
            status VARCHAR, stop_reason VARCHAR, created_at TIMESTAMP, label VARCHAR
        );
        CREATE TABLE trials (
            experiment_id VARCHAR NOT NULL, group_id VARCHAR NOT NULL, stage_id VARCHAR NOT NULL,
            repeat INTEGER NOT NULL, trial_id VARCHAR NOT NULL, status VARCHAR NOT NULL, session_id VARCHAR,
            started_at TIMESTAMP, finished_at TIMESTAMP, attempt INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE runs (
            experiment_id VARCHAR NOT NULL, trial_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL,
            turn INTEGER NOT NULL, status VARCHAR NOT NULL, steps INTEGER NOT NULL, final_answer VARCHAR
        );
        CREATE TABLE llm_calls (
            experiment_id VARCHAR NOT NULL, trial_id VARCHAR NOT NULL, run_id VARCHAR, call_seq INTEGER NOT NULL,
            role VARCHAR NOT NULL, model VARCHAR NOT NULL, input_tokens BIGINT NOT NULL,
            cached_input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL, usd DOUBLE,
            latency_ms DOUBLE, retries INTEGER NOT NULL DEFAULT 0, status VARCHAR NOT NULL,
            request_sha256 VARCHAR
        );
        CREATE TABLE request_segments (
            experiment_id VARCHAR NOT NULL, trial_id VARCHAR NOT NULL, call_seq INTEGER NOT NULL,
            segment VARCHAR NOT NULL, tokens BIGINT NOT NULL
        );
        CREATE TABLE tool_calls (
            experiment_id VARCHAR NOT NULL, trial_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL,
            step INTEGER NOT NULL, tool_name VARCHAR NOT NULL, args_sha256 VARCHAR NOT NULL, result_sha256 VARCHAR,
            success BOOLEAN NOT NULL, error_code VARCHAR, repeated BOOLEAN NOT NULL DEFAULT false,
            duplicate_signature BOOLEAN NOT NULL DEFAULT false, call_id VARCHAR
        );
        CREATE TABLE checks (
            experiment_id VARCHAR NOT NULL, trial_id VARCHAR NOT NULL, check_name VARCHAR NOT NULL,
            result VARCHAR NOT NULL, detail VARCHAR NOT NULL DEFAULT '', turn INTEGER
        );
    """)


def m002_views(con: duckdb.DuckDBPyConnection) -> None:
    for sql in VIEWS.values():
        con.execute(sql)


def m003_trial_failure_mode(con: duckdb.DuckDBPyConnection) -> None:
    """Why a failed trial failed: the classifier's mode and what it rests on."""
    con.execute("ALTER TABLE trials ADD COLUMN failure_mode VARCHAR")
    con.execute("ALTER TABLE trials ADD COLUMN failure_detail VARCHAR")


def m004_cached_responses(con: duckdb.DuckDBPyConnection) -> None:
    """``llm_calls.cached``: the response came from the response cache (``--cache``), no model was called."""
    con.execute("ALTER TABLE llm_calls ADD COLUMN cached BOOLEAN NOT NULL DEFAULT false")


def m005_sampling_and_required_checks(con: duckdb.DuckDBPyConnection) -> None:
    """The sampling each call was sent with (temperature, top_p, seed; null = not sent) and
    whether a check's ``not_exercised`` result keeps its trial from passing."""
    con.execute("ALTER TABLE llm_calls ADD COLUMN temperature DOUBLE")
    con.execute("ALTER TABLE llm_calls ADD COLUMN top_p DOUBLE")
    con.execute("ALTER TABLE llm_calls ADD COLUMN seed BIGINT")
    con.execute("ALTER TABLE checks ADD COLUMN required BOOLEAN NOT NULL DEFAULT true")


def m006_failed_attempts(con: duckdb.DuckDBPyConnection) -> None:
    """``llm_calls.failed_attempts``: the kind of each failed attempt of the call, in order (``rate_limit``,
    ``server_error``, ``timeout``, ``connection``, ``malformed``, …; the last one is what an errored call
    gave up on), so retries and infrastructure errors can be counted by kind in SQL, as report.json's
    ``infrastructure`` does."""
    con.execute("ALTER TABLE llm_calls ADD COLUMN failed_attempts VARCHAR[] NOT NULL DEFAULT []")


def m007_reasoning_and_cache_writes(con: duckdb.DuckDBPyConnection) -> None:
    """``llm_calls.reasoning_tokens``: of ``output_tokens``, the model's reasoning (thinking) tokens as the
    provider reported them; ``llm_calls.cache_write_tokens``: of ``input_tokens``, those written to the
    provider's prompt cache (Anthropic ``cache_creation_input_tokens``). 0 for calls recorded before."""
    con.execute("ALTER TABLE llm_calls ADD COLUMN reasoning_tokens BIGINT NOT NULL DEFAULT 0")
    con.execute("ALTER TABLE llm_calls ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0")


def m008_comparison_tests(con: duckdb.DuckDBPyConnection) -> None:
    """``experiments.test``: the exact test of the run's p-values (``boschloo`` or ``fisher``; experiments
    recorded before were judged with Fisher's). ``comparisons``: every p-value of report.json with the test it
    came from: each group against the placement control (``look`` null) and each comparison at each look of a
    sequential stage (``look`` 1-based, ``threshold`` the look's); ``samples_*`` are the counts over the
    distinct answers when identical repeats were one sample (null: the trials are the samples), and
    ``separable`` is decided on those."""
    con.execute("ALTER TABLE experiments ADD COLUMN test VARCHAR")
    con.execute("UPDATE experiments SET test = 'fisher'")
    con.execute("""
        CREATE TABLE comparisons (
            experiment_id VARCHAR NOT NULL, stage_id VARCHAR NOT NULL, group_id VARCHAR NOT NULL,
            other_id VARCHAR NOT NULL, look INTEGER, passes INTEGER NOT NULL, n INTEGER NOT NULL,
            other_passes INTEGER NOT NULL, other_n INTEGER NOT NULL, samples_passes INTEGER, samples_n INTEGER,
            other_samples_passes INTEGER, other_samples_n INTEGER, p_value DOUBLE, samples_p_value DOUBLE,
            test VARCHAR NOT NULL, alpha DOUBLE NOT NULL, threshold DOUBLE, separable BOOLEAN
        )
    """)


def m009_comparison_family(con: duckdb.DuckDBPyConnection) -> None:
    """``comparisons.adjusted_p``: the p adjusted for the report's family of comparisons (null outside the family,
    under family none, for a sequential look and for experiments recorded before); ``comparisons.family``: the
    family it was judged in (findings, none; null outside any and before). ``separable`` is decided on
    ``adjusted_p`` where there is one."""
    con.execute("ALTER TABLE comparisons ADD COLUMN adjusted_p DOUBLE")
    con.execute("ALTER TABLE comparisons ADD COLUMN family VARCHAR")


Migration = tuple[str, Callable[[duckdb.DuckDBPyConnection], None]]

MIGRATIONS: list[Migration] = [
    ("m001_initial", m001_initial),
    ("m002_views", m002_views),
    ("m003_trial_failure_mode", m003_trial_failure_mode),
    ("m004_cached_responses", m004_cached_responses),
    ("m005_sampling_and_required_checks", m005_sampling_and_required_checks),
    ("m006_failed_attempts", m006_failed_attempts),
    ("m007_reasoning_and_cache_writes", m007_reasoning_and_cache_writes),
    ("m008_comparison_tests", m008_comparison_tests),
    ("m009_comparison_family", m009_comparison_family),
]

TABLES: tuple[str, ...] = ("experiments", "trials", "runs", "llm_calls", "request_segments", "tool_calls", "checks",
                           "comparisons")


def applied_migrations(con: duckdb.DuckDBPyConnection) -> list[str]:
    con.execute("CREATE TABLE IF NOT EXISTS migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)")
    return [row[0] for row in con.execute("SELECT name FROM migrations ORDER BY name").fetchall()]


def migrate(con: duckdb.DuckDBPyConnection, *, in_transaction: bool = False) -> list[str]:
    """Apply the missing migrations in order; returns the names applied now. ``in_transaction``: the caller
    holds a transaction that takes them all (a new file written at once: ``MetricsWriter.create``)."""
    done = set(applied_migrations(con))
    applied = []
    if in_transaction:  # their rows in one INSERT (about half a millisecond each); now() is the transaction's start
        for name, step in MIGRATIONS:
            if name not in done:
                step(con)
                applied.append(name)
        if applied:
            con.execute("INSERT INTO migrations SELECT unnest(?), now()::TIMESTAMP", [applied])
        return applied
    for name, step in MIGRATIONS:
        if name in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            step(con)
            con.execute("INSERT INTO migrations VALUES (?, now()::TIMESTAMP)", [name])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return tables_columns(con, [table])[table]


def tables_columns(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> dict[str, list[str]]:
    """Table → its column names in order, for each of ``tables`` (none: a table not in the database), in one query
    of the information schema (each query of it costs about a millisecond and a half: a writer asks for every table)."""
    rows = con.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_name IN (SELECT unnest(?)) "
        "AND table_schema = 'main' AND table_catalog = current_database() ORDER BY table_name, ordinal_position",
        [list(tables)],
    ).fetchall()
    out: dict[str, list[str]] = {table: [] for table in tables}
    for table, column in rows:
        out[table].append(column)
    return out
