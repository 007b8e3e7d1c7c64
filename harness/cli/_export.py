"""``harness export RUN_DIR --format csv|parquet``: a run's trials, model calls and checks as files."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ._app import app, fail, reflow_help, user_errors


class Format(StrEnum):
    csv = "csv"
    parquet = "parquet"


@app.command("export")
@reflow_help
def export_cmd(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run or sweep directory written by "
                                                                    "`harness run`.")],
    fmt: Annotated[Format, typer.Option("--format", help="csv (with a header row) or parquet.")] = Format.csv,
    out: Annotated[Path | None, typer.Option("--out", help="Directory for the files; default RUN_DIR/export/.")]
    = None,
) -> None:
    """Export a run's trials, model calls and checks as CSV or Parquet files (trials, calls, checks).

    Reads RUN_DIR/metrics.duckdb read-only and writes one file per table with the table's own
    columns (see docs/design.md for what they hold): trials (group, stage, repeat, status, failure
    mode), calls (one row per model call: tokens, USD, latency, retries, cached) and checks (one row
    per check result with its detail). Files already in the output directory are replaced.

    A sweep directory (several --model) gives the same three files with a first column sweep_model:
    one row per model's trial, call or check, the models kept apart by that column.

    Example: harness export reports/unified-mapping-ab-20261005/20261005T120000Z --format parquet
    """
    from harness.metrics import ExportError, export_runs
    from harness.results import ReportError, is_sweep, read_sweep
    from harness.runner import StorageError, storage_problem

    with user_errors():
        if is_sweep(run_dir):
            try:
                sweep = read_sweep(run_dir)
            except ReportError as exc:
                raise ExportError(str(exc)) from None
            members: list[tuple[str | None, Path]] = [(m.model, run_dir / m.slug) for m in sweep.models
                                                      if (run_dir / m.slug / "metrics.duckdb").is_file()]
            skipped = [m.model for m in sweep.models if (m.model, run_dir / m.slug) not in members]
            if not members:
                raise ExportError(f"{run_dir} is a sweep none of whose models has run yet: nothing to export")
        else:
            members, skipped = [(None, run_dir)], []
        target = out or run_dir / "export"
        try:
            written = export_runs(members, target, fmt.value)
        except Exception as exc:  # a read-only, full or missing folder is the environment's (exit 2)
            if not storage_problem(exc):
                raise
            fail(f"{StorageError(target, exc, 'the export folder')}; choose a writable --out")
    for model in skipped:
        typer.echo(f"not exported (no run yet): {model}", err=True)
    for path in written:
        typer.echo(str(path))
