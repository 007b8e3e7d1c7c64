"""``harness report DIR``: re-render report.html, report.md and plots from a run directory (O-3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app, user_errors


@app.command("report")
def report_cmd(
    run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep directory written by `harness run`.")],
) -> None:
    """Re-render report.html, report.md and plots/*.png from DIR's report.json and metrics.duckdb.

    For a sweep directory (several --model), re-render sweep.html and sweep.md from sweep.json and
    every model's report. Calls no model and reads no clock: the same directory always renders to
    the same bytes.

    Example: harness report reports/unified-mapping-ab-20261005/20261005T120000Z
    """
    from harness.report import is_sweep, read_sweep
    from harness.reports import render_all, render_sweep

    with user_errors():
        if is_sweep(run_dir):
            written = []
            for member in read_sweep(run_dir).models:
                if (run_dir / member.slug / "report.json").is_file():
                    written += render_all(run_dir / member.slug)
            written += render_sweep(run_dir)
        else:
            written = render_all(run_dir)
    for path in written:
        typer.echo(str(path))
