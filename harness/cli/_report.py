"""``harness report DIR``: re-render report.html, report.md and plots from a run directory (O-3)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from ._app import app, fail, user_errors


@app.command("report")
def report_cmd(
    run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep directory written by `harness run`.")],
) -> None:
    """Re-render report.html, report.md and plots/*.png from DIR's report.json and metrics.duckdb.

    For a sweep directory (several --model), re-render sweep.html and sweep.md from sweep.json and
    every model's report. Calls no model and reads no clock: the same directory always renders to
    the same bytes.

    While a `harness run` is running in DIR, this is refused (exit 2, naming the process): the run
    rewrites report.json and metrics.duckdb when it ends. Run it again once the run is over.

    Example: harness report reports/unified-mapping-ab-20261005/20261005T120000Z
    """
    from harness.runner import StorageError, storage_problem

    try:
        written = _render(run_dir)
    except (OSError, StorageError) as exc:  # a read-only or full disk: the environment's, named
        if not storage_problem(exc):
            raise
        fail(str(exc) if isinstance(exc, StorageError) else str(StorageError(run_dir, exc)))
    for path in written:
        typer.echo(str(path))


def _render(run_dir: Path) -> list[Path]:
    """Render under the directory's lock (``runner._lock``): never while a run writes it."""
    from harness.rendering import render_all, render_sweep
    from harness.results import is_sweep, read_sweep
    from harness.runner import shared

    with user_errors(), ExitStack() as held:
        held.enter_context(shared(run_dir))
        if is_sweep(run_dir):
            written = []
            for member in read_sweep(run_dir).models:
                if (run_dir / member.slug / "report.json").is_file():
                    held.enter_context(shared(run_dir / member.slug))
                    written += render_all(run_dir / member.slug)
            written += render_sweep(run_dir)
        else:
            written = render_all(run_dir)
    return list(written)
