"""Exports of a run's metrics.duckdb (``harness export``): trials, model calls and checks as CSV or
Parquet, written by DuckDB's own ``COPY`` from a read-only connection (the run is never changed).

A sweep exports its models' runs into one file per table, with ``sweep_model`` (the model the run
was for) as the first column, so one ``pandas.read_csv`` reads every model (the models stay apart
by that column; nothing is pooled).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from protocols import InvalidInput

from ._path import METRICS_FILE

EXPORTS: dict[str, tuple[str, str]] = {
    "trials": ("trials", "group_id, stage_id, repeat, attempt"),
    "calls": ("llm_calls", "trial_id, call_seq"),
    "checks": ("checks", "trial_id, turn NULLS FIRST, check_name"),
}
"""export name → (metrics table, row order)."""
FORMATS = ("csv", "parquet")


class ExportError(InvalidInput):
    """Not a run (or sweep) directory with a readable metrics.duckdb (exit 2).

    An output folder the disk refuses (read-only, full, a file in the way) is not this: the
    operating system's ``OSError`` or DuckDB's ``IOException`` reaches the caller, which names the
    folder (``harness export`` exits 2 with ``runner.StorageError``)."""


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _copy_options(fmt: str) -> str:
    return "(FORMAT CSV, HEADER)" if fmt == "csv" else "(FORMAT PARQUET)"


def _database(run_dir: Path) -> Path:
    path = run_dir / METRICS_FILE
    if not path.is_file():
        raise ExportError(f"{run_dir} is not a run directory: no {METRICS_FILE} (export reads a run directory "
                          "written by `harness run`, or a sweep directory)")
    return path


def export_runs(members: list[tuple[str | None, Path]], out: Path, fmt: str) -> list[Path]:
    """Write ``out/<name>.<fmt>`` for each of ``EXPORTS``. ``members``: (model or None, run directory);
    one member with model None is a plain run (the tables' own columns), else ``sweep_model`` leads."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    databases = [(model, _database(run_dir)) for model, run_dir in members]
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        for i, (_, db) in enumerate(databases):
            try:
                con.execute(f"ATTACH {_literal(db)} AS m{i} (READ_ONLY)")
            except duckdb.Error as exc:
                raise ExportError(f"{db} cannot be opened: {exc}") from None
        written = []
        for name, (table, order) in EXPORTS.items():
            parts = [f"SELECT {'' if model is None else '? AS sweep_model, '}* FROM m{i}.{table}"
                     for i, (model, _) in enumerate(databases)]
            params = [model for model, _ in databases if model is not None]
            order_by = order if all(m is None for m, _ in databases) else f"sweep_model, {order}"
            target = out / f"{name}.{fmt}"
            query = f"SELECT * FROM ({' UNION ALL BY NAME '.join(parts)}) ORDER BY {order_by}"
            try:
                con.execute(f"COPY ({query}) TO {_literal(target)} {_copy_options(fmt)}", params)
            except duckdb.IOException:
                raise  # the folder cannot be written: the disk's problem, named by the caller
            except duckdb.Error as exc:
                raise ExportError(f"cannot export {table}: {exc}") from None
            written.append(target)
        return written
    finally:
        con.close()
