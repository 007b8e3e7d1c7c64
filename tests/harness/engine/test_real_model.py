"""Opt-in: ``harness converse`` against a real model on a local llama.cpp server (E-1, E-4, E-11).

Runs only when ``LLAMA_API_BASE`` is set, e.g. after ``scripts/llama_server.sh`` (docs/local-server.md, "The
real-model test"): ``LLAMA_API_BASE=http://127.0.0.1:8080/v1 pytest tests/harness/engine/test_real_model.py``.
``LLAMA_MODEL`` is the litellm model string (default ``openai/qwen``, the script's alias).

What is asserted is that the real path works end to end: the call goes over HTTP through litellm
without an API key in the environment, and real usage is recorded. Whether the small model
answers correctly is what experiments measure, not what this test checks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app

API_BASE = os.environ.get("LLAMA_API_BASE")
MODEL = os.environ.get("LLAMA_MODEL", "openai/qwen")
SIMPLE = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"

pytestmark = pytest.mark.skipif(
    not API_BASE, reason="the real-model test waits for LLAMA_API_BASE: set it to a local llama.cpp server's "
                         "URL, e.g. http://127.0.0.1:8080/v1 after scripts/llama_server.sh (docs/local-server.md, "
                         "'The real-model test')")


def test_e4_converse_on_real_local_model_records_real_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs none (placeholder key)
    result = CliRunner().invoke(app, [
        "converse", "--protocol", "unified@3", "--option", "stateMessagePlacement=trailing_user",
        "--model", MODEL, "--api-base", str(API_BASE), "--input", SIMPLE, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    runs = json.loads((tmp_path / "runs.json").read_text(encoding="utf-8"))
    assert len(runs) == 1 and runs[0]["status"] == "completed", runs
    assert runs[0]["usage"]["input_tokens"] > 0 and runs[0]["usage"]["output_tokens"] > 0
    assert runs[0]["calls"] and all(c["status"] == "ok" and c["usage"]["input_tokens"] > 0 for c in runs[0]["calls"])
    assert all(c["usd"] is None and not c["price_known"] for c in runs[0]["calls"])  # no price: unknown, not $0
    snapshots = [json.loads(line) for line in (tmp_path / "snapshots.jsonl").read_text(encoding="utf-8").splitlines()]
    assert snapshots, "every provider call is snapshotted (E-11)"
    assert "placeholder-key-for-local-server" not in (tmp_path / "snapshots.jsonl").read_text(encoding="utf-8")
