"""``harness schema``: write the plan JSON Schema (X-1)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ._app import app, fail


@app.command("schema")
def schema_cmd(
    out: str = typer.Option(
        "plans/plan.schema.json", "--out", help="Where to write the schema; '-' prints it to stdout."
    ),
) -> None:
    """Write the JSON Schema of experiment plans (generated from the pydantic models)."""
    from harness.plan import plan_json_schema_text

    text = plan_json_schema_text()
    if out == "-":
        sys.stdout.write(text)
        return
    target = Path(out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {target}: {exc.strerror or exc}")
    typer.echo(f"wrote {target}")
