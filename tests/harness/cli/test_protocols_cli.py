"""``harness protocols``: the catalog lists the compression tool for unified@1/2/3, none for prefix@2
(issue 9 must show 4), as JSON and in the table."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()


def test_protocols_json_lists_context_compress_for_unified_only() -> None:
    out = runner.invoke(app, ["protocols", "--json"])
    assert out.exit_code == 0, out.output
    catalog = {e["protocol"]: e for e in json.loads(out.stdout)}
    for key in ("unified@1", "unified@2", "unified@3"):
        assert catalog[key]["maintainerTools"] == ["context_compress"]
        assert "context_compress" not in catalog[key]["tools"]  # offered only to a bound agent
    assert catalog["prefix@2"]["tools"] == [] and catalog["prefix@2"]["maintainerTools"] == []


def test_protocols_table_says_when_context_compress_is_offered() -> None:
    out = runner.invoke(app, ["protocols"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert out.output.count("(agent.contextMaintainer): context_compress") == 3
    assert "(agent.contextMaintainer): none" in out.output
