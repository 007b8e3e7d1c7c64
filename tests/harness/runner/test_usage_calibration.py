"""Issue 12: spent tokens are the provider-reported usage, and the reservation calibrates its prompt
estimate per model from the counts reported so far (ratio reported / estimated, never below 1), so a
token cap holds on a model whose tokenizer or chat template counts more than litellm's estimate."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harness.models import ModelOutput, ModelRequest, Usage
from harness.plan import BudgetSpec
from harness.runner import BudgetLedger, PriceTable
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from tests.harness.runner._run import plan_data, run_plan

REQUEST = ModelRequest(messages=[{"role": "user", "content": "x"}], max_output_tokens=100)


def test_token_cap_holds_when_the_server_reports_twice_the_estimate(tmp_path: Path) -> None:
    """Must show 3: usage reported at 2× the harness's estimate; spent <= maxTotalTokens all the same."""
    data = plan_data()
    cap = 40_000
    data["budget"].update({"maxTotalTokens": cap, "maxOutputTokensPerCall": 256})
    with running_server(resolve_model=get_scripted, model="oracle", usage_scale=2.0) as url:
        outcome = run_plan(tmp_path / "run", "openai/oracle", data, api_base=url, concurrency=8)
        served = fetch_stats(url)["completed"]
    spent = outcome.report.budget.spent
    assert outcome.stop_reason == "budget_exhausted:totalTokens"  # the cap was reached, so it was tested
    assert spent.inputTokens + spent.outputTokens <= cap
    assert spent.llmCalls == served > 5
    ratio = outcome.experiment.ledger.calibration["openai/oracle"]
    assert 1.8 < ratio < 2.3  # learned from the reports: 2× the tokenizer count, vs litellm's estimate
    calls = [json.loads(line) for line in (outcome.run_dir / "calls.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(c["inputTokens"] > 1.8 * c["estimatedInputTokens"] for c in calls if c["ok"])  # the provider's count

    # a resume starts from what the stopped run learnt (calls.jsonl), not from 1×: a server now reporting
    # plain counts (about 1× the estimate) leaves the restored ratio as the largest seen
    with running_server(resolve_model=get_scripted, model="oracle", usage_scale=1.0) as url:
        resumed = run_plan(tmp_path / "run", "openai/oracle", data, api_base=url, concurrency=8, resume=True)
    assert resumed.experiment.ledger.calibration["openai/oracle"] == ratio


def test_reservation_scales_with_the_reported_ratio_and_never_below_the_estimate() -> None:
    async def scenario() -> tuple[int, int, int]:
        ledger = BudgetLedger(BudgetSpec(maxTotalTokens=1_000_000), PriceTable(), margin=1.0)
        first = await ledger.reserve("agent", "m", REQUEST, 1000)
        await ledger.settle(first, ModelOutput(content="ok", usage=Usage(input_tokens=2500, output_tokens=5)))
        second = await ledger.reserve("agent", "m", REQUEST, 1000)
        await ledger.settle(second, ModelOutput(content="ok", usage=Usage(input_tokens=400, output_tokens=5)))
        third = await ledger.reserve("agent", "m", REQUEST, 1000)  # the largest ratio so far still holds
        other = await ledger.reserve("agent", "small", REQUEST, 1000)
        await ledger.settle(other, ModelOutput(content="ok", usage=Usage(input_tokens=300, output_tokens=5)))
        fewer = await ledger.reserve("agent", "small", REQUEST, 1000)  # reported fewer: never below 1×
        return second.input_tokens, third.input_tokens, fewer.input_tokens

    second, third, fewer = asyncio.run(scenario())
    assert second == 2500 and third == 2500 and fewer == 1000


def test_an_uncalibrated_model_has_one_call_in_flight_until_its_first_report() -> None:
    async def scenario() -> list[str]:
        ledger = BudgetLedger(BudgetSpec(), PriceTable(), margin=1.0)
        order: list[str] = []
        probe = await ledger.reserve("agent", "m", REQUEST, 100)
        order.append("probe reserved")

        async def second() -> None:
            await ledger.reserve("agent", "m", REQUEST, 100)
            order.append("second reserved")

        waiting = asyncio.create_task(second())
        for _ in range(5):
            await asyncio.sleep(0)
        order.append("probe settles")
        await ledger.settle(probe, ModelOutput(content="ok", usage=Usage(input_tokens=300, output_tokens=1)))
        await waiting
        return order

    assert asyncio.run(scenario()) == ["probe reserved", "probe settles", "second reserved"]


def test_a_provider_without_usage_is_charged_its_reservation() -> None:
    async def scenario() -> BudgetLedger:
        ledger = BudgetLedger(BudgetSpec(), PriceTable(), margin=1.1)
        reservation = await ledger.reserve("agent", "m", REQUEST, 1000)
        await ledger.settle(reservation, ModelOutput(content="ok", usage=Usage()))
        return ledger

    ledger = asyncio.run(scenario())
    assert ledger.spent.inputTokens == 1100 and ledger.spent.outputTokens == 100
    assert "m" not in ledger.calibration  # nothing reported, nothing learned
