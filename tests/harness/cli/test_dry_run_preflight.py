"""``harness run --dry-run --model M`` (O-25, P-80): the provider preflight of every group, without any call.

The verdicts come from the body litellm builds offline for each group's first request; no socket is
opened (an HTTP call would fail the test: litellm is never given a server here)."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app

PLAN = Path(__file__).parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
runner = CliRunner()


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a dry run opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def _groups(output: str) -> dict[str, str]:
    """group → its preflight line (and the wire line under it)."""
    text = output.replace("\n    wire:", " | wire:")
    groups = {"A", "B", "C", "v2", "v1", "prefix"}  # the design review's "  fix: …" lines are not groups
    return {m.group(1): m.group(2) for m in re.finditer(r"^  (\w+): (.*)$", text, re.MULTILINE)
            if m.group(1) in groups}


def test_claude_46_rejects_a_and_v2_as_prefill() -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", "anthropic/claude-opus-4-6"],
                        terminal_width=400)
    assert out.exit_code == 0, out.output
    lines = _groups(out.output)
    for group in ("A", "v2"):
        line = lines[group]
        assert line.startswith("rejected (claude-4.6-no-prefill), not sent"), line
        assert "the request ends with the state as a trailing assistant turn: a prefill" in line
        assert "takes no assistant prefill: 400" in line
        assert "wire: assistant[header] · user[user input] · assistant[state]" in line
    assert lines["C"].startswith("merged") and "merged into the user's turn" in lines["C"]
    assert "wire: assistant[header] · user[user input + state]" in lines["C"]
    assert lines["B"].startswith("merged") and "merged into the header's assistant turn" in lines["B"]
    assert not lines["v1"].startswith("rejected") and not lines["prefix"].startswith("rejected")
    assert "dry run: no model was called" in out.output
    # the cost estimate counts only what would be sent: 61 planned turns less A's and v2's 11 each
    flat = " ".join(out.output.split())
    assert "39 turn(s) sent" in flat and "(not counted: A, v2, which the preflight holds back)" in flat


def test_bedrock_rejects_every_group_for_its_assistant_first_message() -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", BEDROCK], terminal_width=400)
    assert out.exit_code == 0, out.output
    lines = _groups(out.output)
    assert set(lines) == {"A", "B", "C", "v2", "v1", "prefix"}
    for group, line in lines.items():
        assert line.startswith("rejected (bedrock-first-message-user), not sent"), (group, line)
        assert "A conversation must start with a user message" in line
        assert re.search(r"the first turn is the header", line), (group, line)
        assert "wire: assistant[header" in line


def test_send_rejected_is_said_in_the_dry_run() -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", "anthropic/claude-opus-4-6",
                              "--send-rejected"], terminal_width=400)
    assert out.exit_code == 0, out.output
    assert _groups(out.output)["A"].startswith("rejected (claude-4.6-no-prefill): ")


def test_vertex_bodies_are_built_offline_without_litellms_noise() -> None:
    """Vertex AI's token is stubbed for the offline build: bodies, verdicts, and no bug-report link or traceback."""
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", "vertex_ai/gemini-2.5-pro"],
                        terminal_width=400)
    assert out.exit_code == 0, out.output
    lines = _groups(out.output)
    assert lines["A"].startswith("prefill (gemini-trailing-model-prefill)"), lines["A"]
    assert lines["B"].startswith("merged (consecutive-roles-merged)") and "no provider body" not in out.output
    assert "github.com" not in out.output and "Traceback" not in out.output and "LiteLLM" not in out.output


def test_a_parameter_the_model_refuses_is_exit_2_with_its_fix() -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", "openai/gpt-4o", "--reasoning-effort", "low"],
                        terminal_width=400)
    assert out.exit_code == 2, out.output
    flat = " ".join(out.output.split())
    assert "reasoning_effort 'low'" in flat and "cannot be sent to openai/gpt-4o" in flat and "fix: remove it" in flat


def test_a_sampling_value_the_model_refuses_is_not_sent_and_said() -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", "openai/gpt-5"], terminal_width=400)
    assert out.exit_code == 0, out.output
    assert "not sent: temperature 0 to openai/gpt-5: litellm refuses it" in out.output
    assert "no provider body could be built" not in out.output  # the preflight builds what will be sent


def test_a_run_every_group_of_which_is_held_back_exits_6_and_says_why(tmp_path: Path) -> None:
    """Bedrock rejects every group's assistant-first request: nothing is sent, no trial reaches a verdict."""
    dry = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", BEDROCK], terminal_width=400)
    assert "the run would reach no verdict and exit 6" in " ".join(dry.output.split())
    out = runner.invoke(app, ["run", str(PLAN), "--model", BEDROCK, "--stage", "simple", "--repeats", "simple=1",
                              "--out", str(tmp_path / "run")], terminal_width=400)
    assert out.exit_code == 6, out.output
    flat = " ".join(out.output.split())
    assert "no trial reached a verdict: the preflight held back A, B, C, v1, v2" in flat  # the groups of simple
    assert "bedrock-first-message-user" in flat and (tmp_path / "run" / "report.json").is_file()


@pytest.mark.parametrize(("model", "expected"), [
    ("mistral/mistral-large-latest", {"A": "rejected (mistral-trailing-assistant-rejected)",
                                      "B": "own_message (mistral-messages-kept)",
                                      "C": "rejected (mistral-user-after-tool-rejected)"}),
    ("openai/gpt-4.1", {"A": "new_turn (chat-trailing-assistant-new-turn)", "C": "own_message (openai-messages-kept)"}),
    ("dashscope/qwen-max", {"A": "unknown (dashscope-trailing-assistant-unknown)",
                            "B": "unknown (dashscope-roles-unknown)"}),
    ("ollama/llama3", {"C": "merged (ollama-generate-prompt)"}),
])
def test_the_dry_run_names_each_groups_treatment_and_rule(model: str, expected: dict[str, str]) -> None:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", model], terminal_width=400)
    assert out.exit_code == 0, out.output
    blocks = re.split(r"^  (?=\w+: )", out.output, flags=re.MULTILINE)
    for group, treated in expected.items():
        block = next(b for b in blocks if b.startswith(f"{group}: "))
        assert f"    state message: {treated}" in block, block
        assert "    tool loop: " in block
