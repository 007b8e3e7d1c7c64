"""``harness protocols``: the catalog."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from ._app import app, print_json


@app.command("protocols")
def protocols_cmd(
    as_json: bool = typer.Option(False, "--json", help="Print the catalog as JSON (options schemas included)."),
) -> None:
    """List the protocol catalog: versions, options with defaults and ranges, and context tools (P-60).

    ``maintainerTools`` (context_compress) are offered only to an agent bound to the host's context
    maintainer (plan: agent.contextMaintainer); prefix@2 offers no context tool at all.
    """
    from protocols import describe_catalog

    catalog = describe_catalog()
    if as_json:
        print_json(catalog)
        return
    console = Console()
    for entry in catalog:
        table = Table(title=f"{entry['protocol']} — {entry['summary']}", title_justify="left")
        table.add_column("option")
        table.add_column("default")
        table.add_column("allowed")
        props = entry["optionsSchema"].get("properties", {})
        for name, default in entry["defaults"].items():
            spec = props.get(name, {})
            if "enum" in spec:
                allowed = " | ".join(spec["enum"])
            elif "minimum" in spec or "maximum" in spec:
                allowed = f"{spec.get('minimum', '')}–{spec.get('maximum', '')}"
            else:
                allowed = spec.get("type", "")
            table.add_row(name, str(default).lower() if isinstance(default, bool) else str(default), allowed)
        console.print(table)
        tools = ", ".join(entry["tools"]) or "(none: host compression only)"
        console.print(f"  tools: {tools}", highlight=False, markup=False)
        bound = ", ".join(entry["maintainerTools"]) or "none"
        console.print(f"  offered too when the agent is bound to the context maintainer (agent.contextMaintainer): "
                      f"{bound}\n", highlight=False, markup=False)
