"""X-21, Q-12: a model whose replies run past ``maxOutputTokensPerCall`` is cut at the cap by the
provider (scripted ones too), so the runner's worst-case reservation holds and spent never exceeds
a USD cap, even with 8 trials in flight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.models import Prices, scripted_resolver
from harness.scripted import get_scripted
from tests.harness.runner._run import plan_data, query, run_plan

PADDING = " and so on" * 6000  # ~18,000 tokens after the real answer
PRICE = Prices(input_per_mtok=10.0, output_per_mtok=100.0)


class Padded:
    """The oracle, but every final answer rambles on far past the per-call output cap."""

    def __init__(self) -> None:
        self.inner = get_scripted("oracle")

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        reply = self.inner.reply(messages, tools)
        if reply.content and not reply.tool_calls:
            return {"content": reply.content + PADDING, "tool_calls": []}
        return reply


def _resolve(name: str) -> Padded:
    if name != "padded":
        raise KeyError(name)
    return Padded()


def test_usd_cap_holds_at_concurrency_8_when_replies_exceed_the_output_cap_X21(tmp_path: Path) -> None:
    data = plan_data()
    data["budget"] = {**data["budget"], "maxUsd": 1.0, "maxTotalTokens": None}
    cap = data["budget"]["maxOutputTokensPerCall"]
    with scripted_resolver(_resolve):
        outcome = run_plan(tmp_path / "run", "scripted/padded", data, prices={"scripted/padded": PRICE},
                           concurrency=8)
    assert outcome.status == "stopped" and outcome.stop_reason == "budget_exhausted:usd"
    spent = outcome.report.budget.spent
    assert 0.5 < spent.usd <= 1.0
    rows = query(outcome.run_dir, "SELECT max(output_tokens), count(*) FILTER (WHERE output_tokens = "
                                  f"{cap}) FROM llm_calls")
    assert rows[0][0] <= cap and rows[0][1] > 0  # replies were cut at the cap, not below it by chance
    report = json.loads((outcome.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["budget"]["spent"]["usd"] <= 1.0
