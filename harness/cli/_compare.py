"""``harness compare DIR DIR…``: one table across runs (O-13)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from harness.metrics import RunSummary, load_runs

from ._app import app, print_json, user_errors


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "—"
    usd = "$?" if row["usd"] is None else f"${row['usd']:.4f}"
    extra = f" · {row['errors']} err" if row["errors"] else ""
    return (f"{row['passed']}/{row['n']} passed{extra}\n"
            f"{usd} · {_tokens(int(row['total_tokens']))} tok · {row['repeated_tool_calls']} rep")


def _row_keys(runs: list[RunSummary]) -> list[tuple[str, str]]:
    stages: list[str] = []
    for run in runs:
        stages += [s for s in run.stage_order if s not in stages]
    keys = {(r["group_id"], r["stage_id"]) for run in runs for r in run.rows}
    return sorted(keys, key=lambda k: (k[0], stages.index(k[1]) if k[1] in stages else len(stages), k[1]))


def comparison_table(runs: list[RunSummary]) -> Table:
    table = Table(title="group × stage across runs: passes, USD, tokens, repeated tool calls", title_justify="left")
    table.add_column("group")
    table.add_column("stage")
    for run in runs:
        table.add_column(run.label, overflow="fold")
    index = [{(r["group_id"], r["stage_id"]): r for r in run.rows} for run in runs]
    for key in _row_keys(runs):
        table.add_row(key[0], key[1], *(_cell(rows.get(key)) for rows in index))
    return table


@app.command("compare")
def compare_cmd(
    runs: Annotated[list[str], typer.Argument(metavar="DIR...", help="Run directories (each with metrics.duckdb).")],
    as_json: bool = typer.Option(False, "--json", help="Print the summaries as JSON."),
) -> None:
    """Compare runs: attach each metrics.duckdb and print one group × stage table."""
    with user_errors():
        summaries = load_runs(list(runs))
    if as_json:
        print_json([{"label": s.label, "path": str(s.path), "rows": s.rows} for s in summaries])
        return
    Console().print(comparison_table(summaries))
