"""``harness report DIR``: re-render report.html, report.md and plots from a run directory (O-3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app, user_errors


@app.command("report")
def report_cmd(
    run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run directory written by `harness run`.")],
) -> None:
    """Re-render report.html, report.md and plots/*.png from DIR's report.json and metrics.duckdb.

    Calls no model and reads no clock: the same directory always renders to the same bytes.

    Example: harness report reports/unified-mapping-ab-20261005/20261005T120000Z
    """
    from harness.reports import render_all

    with user_errors():
        written = render_all(run_dir)
    for path in written:
        typer.echo(str(path))
