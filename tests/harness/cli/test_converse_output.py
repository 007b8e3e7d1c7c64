"""``harness converse`` output for a new user (O-24 table, E-6, E-11): cost never shown as a silent
$0, and an answer that looks like an unparsed tool call is pointed out (and still kept as the answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import scripted_resolver
from tests.harness.runner._run import FIXED_PLAN

SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
JSON_CALL = '{"name": "budget_lookup", "arguments": {"project_id": "P-17"}}'


class _Writer:
    """Answers with fixed text and never calls a tool (as a model whose tool calls go unparsed)."""

    def __init__(self, name: str, text: str) -> None:
        self.name, self.text = name, text

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"content": self.text, "tool_calls": []}


def _converse(tmp_path: Path, text: str) -> tuple[str, list[dict[str, Any]]]:
    models = {"jsontext": _Writer("jsontext", JSON_CALL), "plain": _Writer("plain", text)}
    name = "jsontext" if text == JSON_CALL else "plain"
    with scripted_resolver(lambda n: models[n]):
        result = CliRunner().invoke(app, [
            "converse", "--protocol", "unified@3", "--model", f"scripted/{name}", "--input", SIMPLE,
            "--out", str(tmp_path)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output, json.loads((tmp_path / "runs.json").read_text(encoding="utf-8"))


def test_e11_unpriced_model_prints_price_unknown_not_zero(tmp_path: Path) -> None:
    output, runs = _converse(tmp_path, "剩余 7650 元。")
    assert runs[0]["status"] == "completed" and runs[0]["usd"] is None
    assert all(c["usd"] is None and c["price_known"] is False for c in runs[0]["calls"])
    assert runs[0]["usage"]["input_tokens"] > 0
    assert "price unknown" in output and "$0" not in output
    assert "looks like a tool call" not in output


def test_e6_json_tool_call_in_answer_is_warned_and_kept(tmp_path: Path) -> None:
    output, runs = _converse(tmp_path, JSON_CALL)
    assert runs[0]["status"] == "completed" and runs[0]["final_answer"] == JSON_CALL  # never repaired
    assert runs[0]["tool_calls"] == []
    assert "warning:" in output and "turn 1's final answer looks like a tool call" in output


def test_o24_answer_text_is_printed_as_written_not_as_markup(tmp_path: Path) -> None:
    """A real model echoed "[context_state] ..."; Rich must not swallow the bracketed label as a style tag."""
    output, _ = _converse(tmp_path, "[context_state] 剩余 [bold]7650[/bold] 元")
    assert "[context_state] 剩余 [bold]7650[/bold] 元" in output


def test_converse_works_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its default --plan is the repository's fixed plan, found from the package, not from the current
    folder (before: "invalid plan plans/… no such file" outside the repository)."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["converse", "--protocol", "unified@3", "--model", "scripted/oracle",
                                      "--input", SIMPLE], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    [folder] = (tmp_path / "reports" / "converse").iterdir()  # the output still goes below the current folder
    runs = json.loads((folder / "runs.json").read_text(encoding="utf-8"))
    assert runs[0]["status"] == "completed" and "7650" in runs[0]["final_answer"]
    first = json.loads((folder / "snapshots.jsonl").read_text(encoding="utf-8").splitlines()[0])
    plan = json.loads(FIXED_PLAN.read_text(encoding="utf-8"))
    head = plan["agent"]["systemPrompt"].split("{{", 1)[0]
    assert head.strip() and first["request"]["messages"][0]["content"].startswith(head)  # the plan's agent
