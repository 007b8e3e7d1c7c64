"""Folds and agent-called compression in the conversation stage on a plan the oracle was not tuned to
(issue 11 "Exercise folds and compression"; issue 9 must show 4).

Other customer, amounts, dates and budget than the fixed plan: the oracle still reads the window's
history listing, folds the answered tool exchange, calls context_compress after the finished stage,
and both read-back checks pass. Without the maintainer binding there is no compression tool, so
the compression check has nothing to verify.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.harness.runner._run import plan_data, run_plan


def variant(bound: bool = True) -> dict[str, Any]:
    data = copy.deepcopy(plan_data())
    data["agent"]["contextMaintainer"] = bound
    conversation = next(s for s in data["stages"] if s["id"] == "conversation")
    conversation["repeats"] = 1
    t1, t2, t3 = conversation["turns"]
    t1["input"] = "客户 BETA 需要 5 台 Z9 设备，单价 1800 元，每台安装费 300 元。请完成报价并告诉我总价。"
    t1["checks"][1]["numbers"] = [10500]
    t2["input"] = "接下来安排安装：需要 3 个工作日，最早 2026-11-07 开始。请排期并告诉我起止日期。"
    t2["checks"][1]["dates"] = ["2026-11-09", "11-11"]
    t3["input"] = "客户把预算调整为 12000 元。请回到报价，核对报价是否在预算内，不要覆写已有报价，核对后向我汇报。"
    t3["checks"][0]["numbers"] = [10500]
    memory = next(c for c in conversation["trialChecks"] if c["name"] == "memory_preserved")
    memory["contains"], memory["forbidden"] = ["10500"], ["2026-11-09", "11-11"]
    return data


def _trials(outcome: Any, group: str) -> list[Any]:
    g = next(g for g in outcome.report.groups if g.id == group)
    return next(s for s in g.stages if s.id == "conversation").trials


def test_variant_conversation_folds_compresses_and_reads_back(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", data=variant(), stages=["conversation"], groups=["C", "v1", "prefix"],
                       concurrency=4)
    for group in ("C", "v1"):
        (trial,) = _trials(outcome, group)
        assert trial.status == "passed", trial.error
        checks = {c.name: c for c in trial.checks}
        assert checks["fold_readback"].result == "passed"
        assert checks["compression_readback"].result == "passed"
        assert "10500" in (trial.runs[2].finalAnswer or "")
    records = [json.loads(line) for line in (outcome.run_dir / "trials.jsonl").read_text("utf-8").splitlines()]
    agent = [m for r in records if r["group"] in ("C", "v1") for run in r["runs"] for m in run["maintenance"]]
    assert agent and all(m["trigger"] == "agent" and m["call_id"] for m in agent)
    assert any(m["status"] == "compressed" and m["covered_through"] > 0 and m["compressed_folds"] for m in agent)
    (prefix,) = _trials(outcome, "prefix")
    assert not [c for run in prefix.runs for c in run.toolCalls if c.toolName.startswith("context_")]


def test_unbound_agent_gets_no_compression_tool(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", data=variant(bound=False), stages=["conversation"], groups=["A"])
    (trial,) = _trials(outcome, "A")
    called = {c.toolName for run in trial.runs for c in run.toolCalls}
    assert "context_fold_create" in called and "context_compress" not in called
    checks = {c.name: c.result for c in trial.checks}
    assert checks["fold_readback"] == "passed"
    assert checks["compression_readback"] != "passed"  # nothing compressed: no claim about it
