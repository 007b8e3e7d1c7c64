"""The routes table of docs/routes.md agrees with what the dry run prints (P-80): for every row with an example
model, each of A, B and C has the treatment and the rule the preflight gives it, the groups it says are held
back are exactly those not sent, and every rule it names is in the table of rules."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from harness.plan import load_plan
from harness.runner import RunRequest, Settings
from harness.runner._execute import run_preflight
from harness.wire import ROUTES, RULE_BY_ID, provider_of, route_of

ROOT = Path(__file__).parents[3]
PLAN = ROOT / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
MARKER = "<!-- hosted-models-table:"
CELL = re.compile(r"`(own_message|merged|prefill|new_turn|rejected|unknown)` \(([a-z0-9.-]+)\)")
HELD = {"holds A and v2 back": {"A", "v2"}, "holds A, v2 and C back": {"A", "v2", "C"},
        "holds every group back": {"A", "B", "C", "v2", "v1"}}


def rows() -> list[list[str]]:
    text = (ROOT / "docs" / "routes.md").read_text(encoding="utf-8")
    table = text[text.index(MARKER):].split("\n\n")[0].splitlines()[3:]
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in table if line.startswith("|")]


def examples(cell: str) -> list[str]:
    """The example models of a route cell: the backticked names after "e.g." (before any "at `API_BASE`")."""
    after = cell.split("e.g. ", 1)[1].split(" at ")[0] if "e.g. " in cell else ""
    return re.findall(r"`([^`]+)`", after)


EXAMPLES = [(r[0], model, a.group(1) if (a := re.search(r"at `([^`]+)`", r[0])) else None, r)
            for r in rows() for model in examples(r[0])]


@cache
def dry_run(model: str, api_base: str | None) -> dict[str, dict[str, Any]]:
    plan, sha = load_plan(PLAN)
    request = RunRequest(plan=plan, plan_sha256=sha, plan_path=str(PLAN), out_dir=ROOT / "unused",
                         settings=Settings(agent_model=model, maintainer_model=model, api_base=api_base))
    return {p["group"]: p for p in run_preflight(request, [g for g in plan.groups if g.id in ("A", "B", "C", "v2",
                                                                                              "v1")])}


def test_the_table_has_a_row_for_every_route_and_names_only_rules_of_the_table() -> None:
    table = rows()
    assert len(table) >= 18 and all(len(r) == 6 for r in table), table
    named = {rule for r in table for rule in re.findall(r"\(([a-z0-9]+(?:[.-][a-z0-9]+)+)\)", " ".join(r[1:5]))}
    assert named and named <= set(RULE_BY_ID), named - set(RULE_BY_ID)
    routes = {route_of(model, provider_of(model), base).name for _, model, base, _ in EXAMPLES}
    assert routes | {"local"} == set(ROUTES), set(ROUTES) - routes
    assert any("loopback" in r[0] for r in table)  # the local route: read from the server, not a table


@pytest.mark.parametrize(("label", "model", "api_base", "row"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_each_row_is_what_the_dry_run_prints(label: str, model: str, api_base: str | None, row: list[str]) -> None:
    checks = dry_run(model, api_base)
    for group, cell in zip(("A", "B", "C"), row[1:4], strict=True):
        treatment, rule = CELL.search(cell).groups()  # type: ignore[union-attr]
        assert (checks[group]["treatment"], checks[group]["treatmentRule"]) == (treatment, rule), (group, cell)
    assert checks["v2"]["treatment"] == checks["A"]["treatment"]  # "A and v2"
    held = next((groups for words, groups in HELD.items() if words in row[4]), set())
    assert {g for g, p in checks.items() if not p["sent"]} == held, row[4]
