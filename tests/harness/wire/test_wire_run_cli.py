"""``harness run`` end to end over the strict emulators (P-80, E-11): the fixed plan's ``simple`` and
``tool_continuation`` stages through the CLI, litellm's real client and each provider's format.

What the preflight predicts is what the run does: B, C and v1 pass; A and v2 are sent as a prefill
the emulated model takes (Sonnet 4.5, Gemini 3 Pro), or held back where the provider rejects them
(Opus 4.6), never a model failure, and a rejection sent on purpose is never retried. The difference
panel's ``wire`` says where each provider put the state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator

PLAN = Path(__file__).parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
KEY = "emulator-key-not-secret-0123"
runner = CliRunner()


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


def run(tmp_path: Path, model: str, base: str, *extra: str) -> tuple[dict[str, Any], str]:
    out_dir = tmp_path / "run"
    out = runner.invoke(app, ["run", str(PLAN), "--model", model, "--api-base", base, "--stage", "simple",
                              "--stage", "tool_continuation", "--repeats", "simple=1", "--repeats",
                              "tool_continuation=1", "--concurrency", "5", "--out", str(out_dir), *extra],
                        terminal_width=400)
    assert out.exit_code in (0, 3), out.output
    written = "".join(p.read_text(encoding="utf-8") for p in out_dir.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert KEY not in written and KEY not in out.output  # O-30: no API key in any output
    return json.loads((out_dir / "report.json").read_text(encoding="utf-8")), out.output


def stages(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(g["id"], s["id"]): s for g in report["groups"] for s in g["stages"]}


def wire_of(report: dict[str, Any], group: str) -> dict[str, Any]:
    entry = next(d for d in report["groupDifferences"] if d["group"] == group)
    assert len(entry["wire"]) == 1, entry
    return dict(entry["wire"][0])


def no_model_failure(report: dict[str, Any], groups: tuple[str, ...]) -> None:
    for (group, _), stage in stages(report).items():
        if group in groups:
            assert all(t["status"] != "failed" and t["failureMode"] is None for t in stage["trials"]), stage


def test_anthropic_sonnet_45(tmp_path: Path, anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    report, output = run(tmp_path, "anthropic/claude-sonnet-4-5", base)
    got = stages(report)
    for group in ("B", "C", "v1"):
        assert got[(group, "tool_continuation")]["status"] == "passed", got[(group, "tool_continuation")]
    checks = {p["group"]: p for p in report["preflight"]}
    assert {g: checks[g]["verdict"] for g in ("A", "v2")} == {"A": "prefill", "v2": "prefill"}
    assert all(p["sent"] for p in report["preflight"]) and emulator.rejections == []
    no_model_failure(report, ("A", "v2"))
    c, b = wire_of(report, "C"), wire_of(report, "B")
    assert c["provider"] == "anthropic" and c["group"]["state"]["mergedWith"] == ["user input"]
    assert "C's state is merged into the user's turn" in c["summary"]
    assert b["group"]["state"]["mergedWith"] == ["header"] and "merged into the header's assistant turn" in b["summary"]
    summary = next(d for d in report["groupDifferences"] if d["group"] == "C")["summary"]
    assert "not on the wire" in summary and "As designed." not in summary
    finding = report["findings"][0]
    assert "wire confound" in finding["doesNotShow"] and "role treatment C" in finding["doesNotShow"]
    caveat = "preflight C (unified@3 on anthropic/claude-sonnet-4-5): merged"
    assert any(c.startswith(caveat) for c in report["caveats"])
    assert "preflight on anthropic/claude-sonnet-4-5" in output and "  C: merged" in output


def test_gemini_3_pro(tmp_path: Path, gemini_server: tuple[GeminiEmulator, str]) -> None:
    emulator, base = gemini_server
    report, _ = run(tmp_path, "gemini/gemini-3-pro-preview", base)
    got = stages(report)
    for group in ("B", "C", "v1"):
        assert got[(group, "tool_continuation")]["status"] == "passed", got[(group, "tool_continuation")]
    checks = {p["group"]: p for p in report["preflight"]}
    assert checks["A"]["verdict"] == checks["v2"]["verdict"] == "prefill"  # Gemini 3 Pro takes a model turn
    assert emulator.rejections == []
    no_model_failure(report, ("A", "v2"))
    c = wire_of(report, "C")
    assert c["provider"] == "gemini" and c["group"]["state"]["mergedWith"] == ["user input"]
    assert "C's state is merged into the user's turn" in c["summary"]


def test_anthropic_opus_46_holds_back_the_rejected_groups(tmp_path: Path,
                                                         anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    report, output = run(tmp_path, "anthropic/claude-opus-4-6", base)
    got = stages(report)
    for group in ("A", "v2"):
        simple = got[(group, "simple")]
        assert simple["status"] == "skipped" and simple["passRate"]["n"] == 0
        assert all(t["status"] == "skipped" and "claude-4.6-no-prefill" in str(t["error"]) for t in simple["trials"])
        assert got[(group, "tool_continuation")]["status"] == "not_reached"
    assert got[("C", "tool_continuation")]["status"] == "passed" and emulator.rejections == []
    assert {p["group"] for p in report["preflight"] if not p["sent"]} == {"A", "v2"}
    c = wire_of(report, "C")  # compared with A's request built offline: A was never sent
    assert next(d for d in report["groupDifferences"] if d["group"] == "C")["controlRequest"] == "offline:A/simple"
    assert c["control"]["endsWithAssistant"] and "merged into the user's turn" in c["summary"]
    assert "A: rejected (claude-4.6-no-prefill), not sent" in output


def test_a_rejection_sent_on_purpose_is_one_call_not_retried(tmp_path: Path,
                                                              anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    report, _ = run(tmp_path, "anthropic/claude-opus-4-6", base, "--group", "A", "--group", "v1",
                    "--send-rejected")
    simple = stages(report)[("A", "simple")]
    assert simple["status"] == "inconclusive"
    assert [t["status"] for t in simple["trials"]] == ["error"] and "provider_rejected" in simple["trials"][0]["error"]
    assert len([e for e in emulator.exchanges if e.status == 400]) == 1  # no retry, no new trial
    infra = next(i for i in report["infrastructure"] if i["group"] == "A")
    assert infra["errorKinds"] == {"rejected": 1} and infra["retriedTrials"] == 0
