"""``harness run <fixed plan> --stage simple --stage tool_continuation --reasoning-effort low`` end to end
(E-4, X-20, X-22, O-10), in process through the CLI, litellm's real client and the strict emulators.

Anthropic (``claude-sonnet-4-5``, thinking with a 1024-token budget): every agent call sends ``thinking``
with ``max_tokens`` = the plan's 1024 + the budget and no temperature (Claude with thinking takes 1 only:
the plan's 0 is left unsent and a caveat says so); the thinking blocks go back in the tool loop, so B, C
and v1 pass ``tool_continuation``; A and v2, whose requests end with an assistant turn (a prefill the API
refuses with thinking on), end ``error`` as ``provider_rejected``, never as model failures. Gemini
(``gemini-3-pro-preview``, thinking level low): thought signatures round-trip and B, C, v1 pass. Both
report reasoning tokens in report.json (trial, stage, group) and in metrics.duckdb ``llm_calls``, and the
hosted model's name on a loopback gateway keeps litellm's price.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator
from tests.helpers.wire_requests import PLAN as FIXED_PLAN

SONNET = "anthropic/claude-sonnet-4-5"
PRO = "gemini/gemini-3-pro-preview"
PASSING = ("B", "C", "v1")
REJECTED = ("A", "v2")
KEY = "emulator-key-not-secret-0123"


@pytest.fixture(autouse=True)
def provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


def run(model: str, base: str, out: Path) -> tuple[Any, dict[str, Any]]:
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--stage", "simple", "--stage", "tool_continuation",
                                      "--model", model, "--api-base", base, "--reasoning-effort", "low",
                                      "--out", str(out), "--concurrency", "4"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert KEY not in result.output
    text = (out / "report.json").read_text(encoding="utf-8")
    assert KEY not in text and not any(KEY in p.read_text(encoding="utf-8", errors="replace")
                                       for p in out.rglob("*.jsonl"))
    return result, json.loads(text)


def stages(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(g["id"], s["id"]): s for g in report["groups"] for s in g["stages"]}


def check_common(report: dict[str, Any], out: Path) -> None:
    cells = stages(report)
    for group in PASSING:
        assert cells[(group, "tool_continuation")]["status"] == "passed", (group, cells[(group, "tool_continuation")])
        assert cells[(group, "tool_continuation")]["metrics"]["reasoningTokens"] > 0
    groups = {g["id"]: g for g in report["groups"]}
    assert all(groups[g]["metrics"]["reasoningTokens"] > 0 for g in PASSING)
    trial = cells[("B", "tool_continuation")]["trials"][0]["metrics"]
    assert 0 < trial["reasoningTokens"] < trial["outputTokens"]  # inside output tokens, and on their own
    assert report["model"]["reasoningEffort"] == "low"
    assert any(o["option"] == "--reasoning-effort low" for o in report["overrides"])
    with duckdb.connect(str(out / "metrics.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT role, sum(reasoning_tokens), sum(output_tokens), sum(cache_write_tokens) "
                           "FROM llm_calls WHERE status = 'ok' GROUP BY role").fetchall()
    by_role = {role: (reasoning, output, writes) for role, reasoning, output, writes in rows}
    assert 0 < by_role["agent"][0] < by_role["agent"][1] and by_role["agent"][2] == 0


def test_anthropic_thinking_run_of_the_two_stages(anthropic_server: tuple[AnthropicEmulator, str],
                                                  tmp_path: Path) -> None:
    emulator, base = anthropic_server
    out = tmp_path / "run"
    result, report = run(SONNET, base, out)
    check_common(report, out)
    sent = [e.body for e in emulator.exchanges]
    assert sent and all(b["thinking"] == {"type": "enabled", "budget_tokens": 1024} for b in sent)
    assert all(b["max_tokens"] == 1024 + 1024 > b["thinking"]["budget_tokens"] for b in sent)
    assert all("temperature" not in b for b in sent)  # Claude with thinking refuses the plan's 0
    assert report["model"]["thinkingBudgetTokens"] == 1024
    assert any(c.startswith("models.sampling.temperature 0 was not sent") for c in report["caveats"])
    # the tool loop sent the signed thinking block back: the second call's assistant turn starts with it
    loops = [b for b in sent if any(isinstance(m["content"], list) and m["role"] == "assistant"
                                    and any(k.get("type") == "tool_use" for k in m["content"]) for m in b["messages"])]
    assert loops and all(next(m for m in b["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
                              and any(k.get("type") == "tool_use" for k in m["content"]))["content"][0]["type"]
                         == "thinking" for b in loops)
    # with thinking on Anthropic refuses a request ending with an assistant turn: the preflight, reading
    # the body built with thinking, holds A's and v2's prefills back, so nothing sent was refused
    assert all(e.status == 200 for e in emulator.exchanges) and emulator.rejections == []
    assert not any(b["messages"][-1]["role"] == "assistant" for b in sent)
    cells = stages(report)
    for group in REJECTED:
        trials = [t for stage in ("simple", "tool_continuation") if (group, stage) in cells
                  for t in cells[(group, stage)]["trials"]]
        assert trials and all(t["status"] == "skipped" for t in trials), (group, trials)  # never failed
        assert all("rejected" in (t["error"] or "") for t in trials), (group, trials)
    flagged = {p["group"]: p for p in report["preflight"]}
    assert all(flagged[g]["verdict"] == "rejected" and not flagged[g]["sent"] for g in REJECTED)
    price = report["model"]["prices"][SONNET]
    assert price["source"] == "litellm-gateway" and price["inputPerMTok"] > 0
    assert report["budget"]["spent"]["usd"] is not None and report["budget"]["spent"]["usd"] > 0
    assert f"litellm's price for {SONNET} (served through the gateway at 127.0.0.1:" in result.output
    assert "reasoning: effort low" in result.output


def test_gemini_thinking_run_of_the_two_stages(gemini_server: tuple[GeminiEmulator, str], tmp_path: Path) -> None:
    emulator, base = gemini_server
    out = tmp_path / "run"
    _, report = run(PRO, base, out)
    check_common(report, out)
    sent = [e.body for e in emulator.exchanges]
    assert all(b["generationConfig"]["thinkingConfig"]["thinkingLevel"] == "low" for b in sent)
    assert all(b["generationConfig"]["max_output_tokens"] == 1024 for b in sent)  # a level, not a budget
    assert report["model"]["thinkingBudgetTokens"] is None
    assert not any("signature" in str(r) for r in emulator.rejections)
    assert report["model"]["prices"][PRO]["source"] == "litellm-gateway"
    # A and v2 end as the preflight predicted: Gemini 3 Pro takes a trailing model turn as a prefill, so
    # they were sent and were judged, none ended in a rejection
    cells, preflight = stages(report), {p["group"]: p for p in report["preflight"]}
    for group in REJECTED:
        assert preflight[group]["verdict"] == "prefill" and preflight[group]["sent"], preflight[group]
        trials = [t for stage in ("simple", "tool_continuation") if (group, stage) in cells
                  for t in cells[(group, stage)]["trials"]]
        assert trials and all(t["status"] in ("passed", "failed") for t in trials), (group, trials)


def test_the_effort_is_an_override_restored_on_resume(anthropic_server: tuple[AnthropicEmulator, str],
                                                      tmp_path: Path) -> None:
    _, base = anthropic_server
    out = tmp_path / "run"
    first = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--group", "v1", "--stage", "simple", "--model", SONNET,
                                     "--api-base", base, "--reasoning-effort", "low", "--out", str(out)])
    assert first.exit_code == 0, first.output
    assert json.loads((out / "run.json").read_text())["overrides"] == {"reasoning_effort": "low"}
    other = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--reasoning-effort", "high", "--resume", str(out)])
    assert other.exit_code == 2 and "ran with --reasoning-effort low; this resume gives --reasoning-effort high" \
        in " ".join(other.output.split())
    again = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--resume", str(out)])
    assert again.exit_code == 0, again.output
    assert json.loads((out / "report.json").read_text())["model"]["reasoningEffort"] == "low"


def test_a_scripted_model_takes_no_reasoning_effort(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--group", "v1", "--stage", "simple",
                                      "--reasoning-effort", "low", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "scripted models take no provider parameters" in result.output
    assert not (tmp_path / "run").exists()
