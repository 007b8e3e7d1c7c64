"""Issue 12: a local model runs as documented. A model on a loopback --api-base with no price runs
with its cost reported as unknown ("price unknown (local model)") in the console and in report.md,
report.html and report.json (the price table with its source); maxUsd is reported as not applicable
to it while token and call caps hold. A remote model without a price and a USD cap stays refused
(X-22) with an error naming the price and how to give one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import LiteLLMModel, ModelRequest
from harness.plan import parse_plan
from harness.runner import PriceUnknown, build_price_table
from harness.scripted import get_scripted
from harness.server import running_server
from tests.harness.runner._run import FIXED_PLAN, plan_data, run_plan

LOCAL = "price unknown (local model)"


def test_fixed_plan_against_a_loopback_server_without_price_runs_and_cost_reads_unknown(tmp_path: Path) -> None:
    """Must show 1: `harness run <fixed plan> --model openai/<name> --api-base http://127.0.0.1:P/v1`."""
    out = tmp_path / "run"
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", "openai/oracle", "--api-base", url,
                                          "--concurrency", "8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"spent {LOCAL}" in result.output and "$0.0000" not in result.output
    assert "maxUsd not applicable" in result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["model"]["prices"]["openai/oracle"] == {
        "inputPerMTok": None, "outputPerMTok": None, "cachedInputPerMTok": None, "source": "local-unknown",
        "gateway": None}
    assert report["budget"]["spent"]["usd"] is None and report["budget"]["spent"]["llmCalls"] > 0
    assert "maxUsd" in report["budget"]["notApplicable"]
    stage_usd = {s["metrics"]["usd"] for g in report["groups"] for s in g["stages"]}
    assert stage_usd == {None}  # unknown, never a silent 0
    assert any(LOCAL in c for c in report["caveats"])
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert LOCAL in text and "not applicable" in text, name
        assert "(est.)" in text  # the segment columns are the harness's estimates, and say so
    calls = [json.loads(line) for line in (out / "calls.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {c["usd"] for c in calls} == {0.0} and {c["usage"] for c in calls} == {"provider"}


def test_local_model_still_obeys_token_and_call_caps(tmp_path: Path) -> None:
    data = plan_data()
    data["budget"].update({"maxUsd": 0.01, "maxLlmCalls": 7})  # the USD cap cannot apply; the call cap does
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        outcome = run_plan(tmp_path / "run", "openai/oracle", data, api_base=url, concurrency=4)
    assert outcome.stop_reason == "budget_exhausted:llmCalls"
    assert outcome.report.budget.spent.llmCalls <= 7 and outcome.report.budget.spent.usd is None


def test_price_table_sources_local_remote_and_declared() -> None:
    plan, _ = parse_plan(plan_data())
    local = build_price_table(plan, {"agent": "openai/qwen"}, max_usd=5.0, api_base="http://127.0.0.1:8080/v1")
    assert local.wire(["openai/qwen"])["openai/qwen"]["source"] == "local-unknown" and not local.known("openai/qwen")
    # a local server answering to a hosted model's name is not that model: no price from litellm's map
    named = build_price_table(plan, {"agent": "openai/gpt-4o-mini"}, max_usd=5.0, api_base="http://localhost:8000/v1")
    assert named.wire(["openai/gpt-4o-mini"])["openai/gpt-4o-mini"]["source"] == "local-unknown"
    remote = build_price_table(plan, {"agent": "openai/gpt-4o-mini"}, max_usd=5.0)
    assert remote.wire(["openai/gpt-4o-mini"])["openai/gpt-4o-mini"]["source"] == "litellm"
    from harness.models import Prices
    declared = build_price_table(plan, {"agent": "openai/qwen"}, {"openai/qwen": Prices(input_per_mtok=1,
                                 output_per_mtok=2)}, max_usd=5.0, api_base="http://127.0.0.1:8080/v1")
    assert declared.wire(["openai/qwen"])["openai/qwen"]["source"] == "cli"
    with pytest.raises(PriceUnknown) as refused:
        build_price_table(plan, {"agent": "openai/qwen"}, max_usd=5.0, api_base="https://example.com/v1")
    assert "--price openai/qwen=IN,OUT" in refused.value.errors[0] and "models.prices" in refused.value.errors[0]


def test_adapter_never_prices_a_loopback_model_from_litellms_map() -> None:
    question = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
    request = ModelRequest(messages=[{"role": "user", "content": question}], max_output_tokens=64, timeout_seconds=10)
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        output = asyncio.run(LiteLLMModel("openai/gpt-4o-mini", api_base=url).generate(request))
    assert output.usage.input_tokens > 0
    assert output.usd is None and output.price_known is False


def test_validate_accepts_a_loopback_plan_without_price(tmp_path: Path) -> None:
    data = plan_data()
    data["models"].update({"agent": "openai/qwen", "apiBase": "http://127.0.0.1:8080/v1"})
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert CliRunner().invoke(app, ["validate", str(path)]).exit_code == 0
    data["models"]["apiBase"] = "https://llm.example.com/v1"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 2 and "--price openai/qwen=IN,OUT" in result.output


def test_dry_run_of_a_local_plan_reads_price_unknown() -> None:
    probe = Path(__file__).parents[3] / "plans" / "local-placement-probe" / "experiment-plan.json"
    result = CliRunner().invoke(app, ["run", str(probe), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert f"cost {LOCAL}" in " ".join(result.output.split()) and "$" not in result.output


def test_stages_a_local_model_never_reached_show_no_cost_not_zero(tmp_path: Path) -> None:
    """A local model's cost never reads $0: a stage gating kept from running shows "—" in the console."""
    with running_server(resolve_model=get_scripted, model="prefill-continuer") as url:
        result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", "openai/prefill-continuer",
                                          "--api-base", url, "--group", "A", "--concurrency", "4",
                                          "--out", str(tmp_path / "run")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│ A")]
    assert [r.split("│")[3].strip() for r in rows] == ["failed", "not_reached", "not_reached"], rows
    assert [r.split("│")[5].strip() for r in rows] == ["unknown", "—", "—"], rows
    assert "0.0000" not in result.output
