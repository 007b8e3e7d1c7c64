"""The agent's reasoning settings and what they cost (E-4, X-20, X-22): output cap plus thinking budget
(counted by the budget reservation, not given to the maintainer), request hashes and cache keys that
gain the settings only when set, and litellm's price for a hosted model behind a loopback gateway."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest

from harness.engine import Engine, RunLimits
from harness.models import ModelRequest, make_model
from harness.plan import BudgetSpec, ModelsSpec, parse_plan
from harness.rendering._context import prices
from harness.runner import BudgetLedger, PriceTable, agent_calls, build_price_table
from harness.runner._cache import request_material
from harness.scripted import get_scripted
from protocols import resolve
from protocols.store import MemoryStore
from tests.harness.runner._run import plan_data
from tests.helpers.wire_requests import agent

SONNET = "anthropic/claude-sonnet-4-5"
SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"


def test_the_output_cap_sent_is_the_plans_plus_the_thinking_budget_and_the_reservation_counts_it() -> None:
    calls = agent_calls(SONNET, ModelsSpec(reasoningEffort="low"), 1024)
    assert (calls.extra, calls.max_output_tokens, calls.thinking_budget) == ({"reasoning_effort": "low"}, 2048, 1024)
    request = ModelRequest(messages=[{"role": "user", "content": "?"}], max_output_tokens=calls.max_output_tokens,
                           extra=calls.extra)
    assert BudgetLedger(BudgetSpec(), PriceTable()).worst_case(SONNET, request, 10).output_tokens == 2048
    limits = RunLimits(max_output_tokens=calls.max_output_tokens, thinking_budget=calls.thinking_budget)
    assert limits.maintainer_max_output_tokens == 1024  # the maintainer does not think: the plan's cap


@pytest.mark.parametrize(("model", "effort", "cap"), [
    ("gemini/gemini-3-pro-preview", "low", 1024),  # a thinking level, no budget
    ("gemini/gemini-2.5-flash", "medium", 1024 + 2048),  # thinkingBudget
    (SONNET, None, 1024),  # nothing set: nothing added
])
def test_only_a_budget_adds_to_the_cap(model: str, effort: str | None, cap: int) -> None:
    assert agent_calls(model, ModelsSpec(reasoningEffort=effort), 1024).max_output_tokens == cap  # type: ignore[arg-type]


def _first_snapshot(limits: RunLimits) -> dict[str, object]:
    store = MemoryStore()
    engine = Engine(store=store, protocol=resolve("unified", 1, {}), agent=agent(),
                    model=make_model("scripted/oracle", scripted=get_scripted), model_name="scripted/oracle",
                    limits=limits)
    session = engine.create_session()
    result = asyncio.run(engine.run_send_input(session, SIMPLE))
    return next(snap for _, snap in store.snapshots(result.session_id) if snap.get("role") == "agent")


def test_a_request_without_provider_parameters_hashes_as_before() -> None:
    snap = _first_snapshot(RunLimits())
    request = snap["request"]
    assert isinstance(request, dict) and set(request["params"]) == {"max_tokens", "temperature", "timeout"}
    before = hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert snap["requestSha256"] == before
    plain = ModelRequest(messages=[{"role": "user", "content": "?"}], max_output_tokens=8)
    assert "reasoning_effort" not in json.dumps(request_material("m", None, plain))  # cache keys likewise


def test_provider_parameters_enter_the_hash_and_the_cache_key_when_set() -> None:
    plain = ModelRequest(messages=[{"role": "user", "content": "?"}], max_output_tokens=8)
    thinking = plain.model_copy(update={"extra": {"reasoning_effort": "low"}})
    assert request_material("m", None, plain) != request_material("m", None, thinking)
    assert request_material("m", None, thinking)["sampling"]["reasoning_effort"] == "low"


def test_a_hosted_name_on_a_loopback_gateway_keeps_litellms_price() -> None:
    plan, _ = parse_plan(plan_data())
    table = build_price_table(plan, {"agent": SONNET}, max_usd=5.0, api_base="http://127.0.0.1:4000")
    entry = table.wire([SONNET])[SONNET]
    assert entry["source"] == "litellm-gateway" and entry["gateway"] == "127.0.0.1:4000" and table.known(SONNET)
    hosted = build_price_table(plan, {"agent": SONNET}).wire([SONNET])[SONNET]
    assert hosted["source"] == "litellm" and entry["inputPerMTok"] == hosted["inputPerMTok"] > 0
    note = f"litellm's price for {SONNET} (served through the gateway at 127.0.0.1:4000)"
    assert table.note(SONNET) == note
    report = {"model": {"prices": {SONNET: entry}}}
    assert note in prices(report)[0]["text"]
    gemini = build_price_table(plan, {"agent": "gemini/gemini-2.5-flash"}, api_base="http://localhost:4000/v1beta")
    assert gemini.wire(["gemini/gemini-2.5-flash"])["gemini/gemini-2.5-flash"]["source"] == "litellm-gateway"


@pytest.mark.parametrize("model", ["anthropic/claude-not-a-model-9", "openai/qwen", "openai/gpt-4o-mini"])
def test_a_name_litellm_does_not_price_there_stays_a_local_model(model: str) -> None:
    """An unknown name, or any name on an OpenAI-compatible route (the name a local server was started with)."""
    plan, _ = parse_plan(plan_data())
    table = build_price_table(plan, {"agent": model}, max_usd=5.0, api_base="http://127.0.0.1:4000")
    assert table.wire([model])[model]["source"] == "local-unknown" and not table.known(model)
    assert table.note(model).startswith("price unknown (local model)")
