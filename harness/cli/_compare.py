"""``harness compare DIR DIR…``: one table across runs (O-13)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ._app import app, plain, print_json, user_errors

if TYPE_CHECKING:
    from harness.workflows import RunSummary


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "—"
    usd = "$?" if row["usd"] is None else f"${row['usd']:.4f}"
    extra = f" · {row['errors']} err" if row["errors"] else ""
    return (f"{row['passed']}/{row['n']} passed{extra}\n"
            f"{usd} · {_tokens(int(row['total_tokens']))} tok · {row['repeated_tool_calls']} rep")


def _first_seen(lists: list[list[str]]) -> list[str]:
    out: list[str] = []
    for items in lists:
        out += [i for i in items if i not in out]
    return out


def _row_keys(runs: list[RunSummary]) -> list[tuple[str, str]]:
    """Groups and stages in the order the runs wrote them (plan order), unknown ones last."""
    groups = _first_seen([r.group_order for r in runs])
    stages = _first_seen([r.stage_order for r in runs])

    def position(order: list[str], item: str) -> int:
        return order.index(item) if item in order else len(order)

    keys = {(r["group_id"], r["stage_id"]) for run in runs for r in run.rows}
    return sorted(keys, key=lambda k: (position(groups, k[0]), k[0], position(stages, k[1]), k[1]))


def comparison_table(runs: list[RunSummary]) -> Table:
    table = Table(title="group × stage across runs: passes, USD, tokens, repeated tool calls", title_justify="left")
    table.add_column("group")
    table.add_column("stage")
    for run in runs:
        table.add_column(plain(run.label), overflow="fold")
    index = [{(r["group_id"], r["stage_id"]): r for r in run.rows} for run in runs]
    for key in _row_keys(runs):
        table.add_row(plain(key[0]), plain(key[1]), *(plain(_cell(rows.get(key))) for rows in index))
    return table


@app.command("compare")
def compare_cmd(
    runs: Annotated[list[str], typer.Argument(metavar="DIR...", help="Run directories (each with metrics.duckdb), or "
                                                                       "sweep directories (one column per model).")],
    as_json: bool = typer.Option(False, "--json", help="Print the summaries as JSON."),
) -> None:
    """Compare runs: attach each metrics.duckdb and print one group × stage table.

    A sweep directory (`harness run PLAN --model M1 --model M2 --out D`) gives one column per model.

    Reruns of one plan: every later run is matched to the first trial by trial (group, stage,
    repeat); where both sent a byte-identical first request (prompt, tools, sampling, seed), a note
    says how many answers were identical. All identical: the rerun is a replay and adds no sample.
    Some differ: the server did not replay its sampling, so single trials are not reproducible and
    only rates compare. --json gives it as "replays".
    """
    from harness.workflows import load_runs, replays

    with user_errors():
        summaries = load_runs(list(runs))
    if as_json:
        print_json({"runs": [{"label": s.label, "path": str(s.path), "rows": s.rows, "cachedCalls": s.cached[0],
                              "calls": s.cached[1]} for s in summaries],
                    "replays": [r.wire() for r in replays(summaries)]})
        return
    console = Console()
    console.print(comparison_table(summaries))
    for note in cache_notes(summaries) + [r.sentence() for r in replays(summaries)]:
        console.print(f"note: {note}", markup=False, soft_wrap=True)


def cache_notes(runs: list[RunSummary]) -> list[str]:
    """A comparison mixing responses from the response cache with live calls says so."""
    cached = [r for r in runs if r.cached[0]]
    if not cached:
        return []
    live = [r for r in runs if r.cached[0] < r.cached[1]]
    text = "responses from the response cache (no model call, $0): " + ", ".join(
        f"{r.label} {r.cached[0]} of {r.cached[1]}" for r in cached)
    if live:
        text += ("; this table mixes cached and live responses: USD and latency are not comparable between them, "
                 "and cached responses repeat recorded ones rather than sampling anew")
    return [text]
