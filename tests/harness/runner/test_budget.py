"""Budgets (X-20 … X-22, Q-12): caps hold under concurrency, the run stops with its reason and a
report; unknown prices fail closed before any call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import BudgetExhausted
from harness.models import ModelRequest, Prices, Usage
from harness.plan import BudgetSpec
from harness.runner import BudgetLedger, PriceTable, PriceUnknown
from harness.runner._prices import PriceEntry
from tests.harness.runner._run import FIXED_PLAN, plan_data, run_plan

PRICE = Prices(input_per_mtok=10.0, output_per_mtok=10.0)  # the oracle plan costs ~$2.8 at this price


@pytest.mark.parametrize("concurrency", [8, 20])
def test_usd_cap_running_out_mid_plan_stops_with_spent_below_cap_X21_Q12(tmp_path: Path, concurrency: int) -> None:
    outcome = run_plan(tmp_path / "run", prices={"scripted/oracle": PRICE}, concurrency=concurrency,
                       data={**plan_data(), "budget": {**plan_data()["budget"], "maxUsd": 1.0}})
    assert outcome.status == "stopped" and outcome.stop_reason == "budget_exhausted:usd"
    spent = outcome.report.budget.spent
    assert 0.5 < spent.usd <= 1.0
    report = json.loads((outcome.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["stopReason"] == "budget_exhausted:usd"
    assert report["model"]["prices"]["scripted/oracle"]["inputPerMTok"] == 10.0  # the price table is reported
    statuses = {t["status"] for g in report["groups"] for s in g["stages"] for t in s["trials"]}
    assert "skipped" in statuses and "passed" in statuses


def test_cli_max_usd_with_declared_price_exits_3_and_writes_the_report_O24(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--out", str(out), "--max-usd", "0.2",
                                      "--price", "scripted/oracle=10,10", "--group", "A", "--concurrency", "8"])
    assert result.exit_code == 3, result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["stopReason"] == "budget_exhausted:usd" and report["budget"]["spent"]["usd"] <= 0.2


def test_real_model_without_price_is_refused_before_any_call_X22(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--out", str(out),
                                      "--model", "openai/no-such-model-for-pricing"])
    assert result.exit_code == 2
    assert "no price known for 'openai/no-such-model-for-pricing' (agent model)" in result.output
    assert "--price openai/no-such-model-for-pricing=IN,OUT" in result.output  # how to give one
    assert "models.prices" in result.output and "invalid plan" not in result.output  # the plan is not the problem
    assert not out.exists()  # refused before a directory, a store or a model call exist


def test_unknown_price_without_usd_cap_is_allowed_and_reported_unknown() -> None:
    from harness.plan import parse_plan
    from harness.runner import build_price_table

    plan, _ = parse_plan(plan_data())
    table = build_price_table(plan, {"agent": "openai/no-such-model"}, max_usd=None)
    assert table.wire(["openai/no-such-model"]) == {"openai/no-such-model": {"source": "unknown"}}
    with pytest.raises(PriceUnknown):
        build_price_table(plan, {"agent": "openai/no-such-model"}, max_usd=1.0)


def test_ledger_reserves_worst_case_atomically_for_every_cap_X21() -> None:
    async def scenario() -> tuple[int, BudgetLedger]:
        table = PriceTable({"m": PriceEntry(PRICE, "cli")})
        ledger = BudgetLedger(BudgetSpec(maxTotalTokens=10_000, maxLlmCalls=50), table, margin=1.0)
        request = ModelRequest(messages=[{"role": "user", "content": "x"}], max_output_tokens=1000)
        granted = 0

        async def one() -> None:
            nonlocal granted
            try:
                reservation = await ledger.reserve("agent", "m", request, 1000)
            except BudgetExhausted:
                return
            granted += 1
            await asyncio.sleep(0)
            from harness.models import ModelOutput
            await ledger.settle(reservation, ModelOutput(content="ok", usage=Usage(input_tokens=1000,
                                                                                   output_tokens=10)))

        await asyncio.gather(*(one() for _ in range(30)))
        return granted, ledger

    granted, ledger = asyncio.run(scenario())
    # every reservation is 2000 tokens: only 5 fit at once in 10,000, whatever the interleaving
    assert ledger.exhausted == "totalTokens"
    assert ledger.spent.inputTokens + ledger.spent.outputTokens <= 10_000
    assert granted >= 5 and ledger.spent.llmCalls == granted
