"""``harness run`` end to end over strict OpenAI-format emulators (P-80, E-11): Mistral's validator, OpenAI's
reasoning-parameter refusals, DeepSeek's thinking round trip, through the CLI and litellm's real client.

The fixed plan's ``simple`` and ``tool_continuation`` stages: what the preflight predicts rejected is not sent
(the emulator refuses nothing), every group that can run gets verdicts, a refused sampling value is not sent and
said, and a rejection sent on purpose goes once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.helpers.emulators import ChatEmulator, deepseek_emulator, mistral_emulator, openai_emulator, running_app

PLAN = Path(__file__).parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
KEY = "emulator-key-not-secret-0123"
runner = CliRunner()


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, KEY)


def serve(emulator: ChatEmulator) -> Iterator[str]:
    with running_app(emulator.app) as url:
        yield url + "/v1"


def run(tmp_path: Path, model: str, base: str, *extra: str, code: tuple[int, ...] = (0,)
        ) -> tuple[dict[str, Any], str]:
    out_dir = tmp_path / "run"
    out = runner.invoke(app, ["run", str(PLAN), "--model", model, "--api-base", base, "--stage", "simple",
                              "--stage", "tool_continuation", "--repeats", "simple=1", "--repeats",
                              "tool_continuation=1", "--concurrency", "5", "--out", str(out_dir), *extra],
                        terminal_width=400)
    assert out.exit_code in code, out.output
    written = "".join(p.read_text(encoding="utf-8") for p in out_dir.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert KEY not in written and KEY not in out.output  # O-30: no API key in any output
    return json.loads((out_dir / "report.json").read_text(encoding="utf-8")), out.output


def stages(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(g["id"], s["id"]): s for g in report["groups"] for s in g["stages"]}


def verdicts(report: dict[str, Any], group: str) -> list[str]:
    return [t["status"] for (g, _), s in stages(report).items() if g == group for t in s["trials"]
            if t["status"] in ("passed", "failed")]


def test_mistral_holds_back_a_v2_and_c_and_runs_b_and_v1(tmp_path: Path) -> None:
    emulator = mistral_emulator()
    for base in serve(emulator):
        report, output = run(tmp_path, "mistral/mistral-large-latest", base)
    checks = {p["group"]: p for p in report["preflight"]}
    assert {g for g, p in checks.items() if not p["sent"]} == {"A", "v2", "C"}
    assert checks["A"]["rule"] == "mistral-trailing-assistant-rejected" and checks["A"]["treatment"] == "rejected"
    assert checks["C"]["decidedBy"] == "tool_loop" and checks["C"]["rule"] == "mistral-user-after-tool-rejected"
    assert "Unexpected role 'user' after role 'tool'" in checks["C"]["treatmentDetail"]
    assert checks["B"]["treatment"] == "own_message" and checks["B"]["toolLoop"]["verdict"] == "ok"
    assert emulator.rejections == []  # nothing its validator refuses was sent
    assert len(emulator.exchanges) > 0 and verdicts(report, "B") and verdicts(report, "v1")
    tool = stages(report)[("B", "tool_continuation")]
    assert tool["status"] == "passed", tool  # a tool loop with Mistral's own 9-character ids
    assert "  C: rejected (mistral-user-after-tool-rejected), not sent" in output
    wire = next(d for d in report["groupDifferences"] if d["group"] == "B")["wire"][0]  # A compared offline
    assert wire["controlTreatment"]["treatment"] == "rejected" and wire["groupTreatment"] == {
        "treatment": "own_message", "rule": "mistral-messages-kept", "detail": "its own message, as built"}
    assert "A's state: rejected [mistral-trailing-assistant-rejected]" in wire["summary"]


def test_mistral_a_rejection_sent_on_purpose_goes_once(tmp_path: Path) -> None:
    emulator = mistral_emulator()
    for base in serve(emulator):
        report, _ = run(tmp_path, "mistral/mistral-large-latest", base, "--group", "A", "--group", "v1",
                        "--send-rejected")
    assert [e.error for e in emulator.exchanges if e.error] == [
        "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"]
    assert stages(report)[("A", "simple")]["trials"][0]["status"] == "error"


@pytest.mark.parametrize("model", ["openai/gpt-5", "openai/o3"])
def test_openai_reasoning_models_get_verdicts_without_the_temperature_they_refuse(tmp_path: Path, model: str) -> None:
    emulator = openai_emulator()
    for base in serve(emulator):
        report, output = run(tmp_path, model, base)
    assert emulator.rejections == [] and all("temperature" not in e.body for e in emulator.exchanges)
    assert report["model"]["notSent"].keys() == {"temperature"}
    assert any(c.startswith(f"models.sampling.temperature 0 was not sent to {model}") for c in report["caveats"])
    for group in ("A", "B", "C", "v1", "v2"):
        assert verdicts(report, group), group
    assert sum(g["metrics"]["reasoningTokens"] for g in report["groups"]) > 0
    notes = {n["rule"]: n["side"] for d in report["groupDifferences"] for w in d["wire"] for n in w["notes"]}
    if model == "openai/o3":  # litellm sends o3 the system prompt as a user message: the panel says so
        assert notes == {"openai-o-series-system-as-user": "both"}
        assert all(m["role"] != "system" for e in emulator.exchanges for m in e.body["messages"])
    else:
        assert notes == {}


def test_openai_a_parameter_the_model_refuses_is_exit_2_before_any_call(tmp_path: Path) -> None:
    emulator = openai_emulator()
    for base in serve(emulator):
        out = runner.invoke(app, ["run", str(PLAN), "--model", "openai/gpt-4o", "--api-base", base,
                                  "--reasoning-effort", "low", "--out", str(tmp_path / "run")], terminal_width=400)
    assert out.exit_code == 2, out.output
    assert emulator.exchanges == [] and not (tmp_path / "run").exists()
    assert "reasoning_effort 'low'" in " ".join(out.output.split())


def test_deepseek_reasoning_content_round_trips_and_reasoning_tokens_are_recorded(tmp_path: Path) -> None:
    emulator = deepseek_emulator()
    for base in serve(emulator):
        report, _ = run(tmp_path, "deepseek/deepseek-reasoner", base)
    assert emulator.rejections == []
    assert {p["group"] for p in report["preflight"] if not p["sent"]} == {"A", "v2"}
    looped = [e.body for e in emulator.exchanges if any(m.get("role") == "tool" for m in e.body["messages"])]
    assert looped, "the tool_continuation stage made a tool loop"
    for body in looped:
        calls = [m for m in body["messages"] if m.get("tool_calls")]
        assert calls and all(m["reasoning_content"].startswith("The user wants") for m in calls)
    for group in ("B", "C", "v1"):
        assert verdicts(report, group), group
    assert stages(report)[("C", "tool_continuation")]["status"] == "passed"
    assert sum(g["metrics"]["reasoningTokens"] for g in report["groups"]) > 0
