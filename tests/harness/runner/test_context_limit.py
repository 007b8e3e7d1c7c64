"""Issue 12: a server's context-length refusal is a set-up error. It is never retried; the run stops
at once (exit 3, report written) with ``context_limit`` and a reason naming the context limit, the
prompt size and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import ensure_litellm, is_context_refusal
from harness.models._context import context_sizes
from harness.models._retry import classify
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from tests.harness.runner._run import FIXED_PLAN

LLAMA = "request (9000 tokens) exceeds the available context size (2048 tokens), try increasing it"
VLLM = ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (3976 in the "
        "messages, 1024 in the completion). Please reduce the length of the messages or completion.")
OPENAI = ("This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. "
          "Please reduce the length of the messages.")


def test_every_completion_refused_for_context_stops_the_run_at_once_exit_3(tmp_path: Path) -> None:
    """Must show 2: a server that answers every completion with llama.cpp's context-length 400."""
    out = tmp_path / "run"
    with running_server(resolve_model=get_scripted, model="oracle", fault_rate=1.0, fault_kinds=("context",)) as url:
        result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", "openai/oracle", "--api-base", url,
                                          "--concurrency", "8", "--out", str(out)])
        stats = fetch_stats(url)
    assert result.exit_code == 3, result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["status"] == "stopped" and report["stopReason"] == "context_limit"
    detail = report["stopDetail"]
    assert "context window" in detail and "against a context of" in detail  # the server's limit and prompt size
    assert "estimated the prompt at ~" in detail  # the harness's own prompt size
    assert "--concurrency" in detail and "per-slot context" in detail and "smaller plan" in detail  # the fix
    assert "context_limit" in result.output and "per-slot context" in result.output
    # not retried, nothing else started: the first refusal stopped the run (the uncalibrated model's
    # first call is alone in flight, so exactly one request reached the server)
    assert stats["requests"] == 1 and report["budget"]["spent"]["llmCalls"] == 1
    trials = [t for g in report["groups"] for s in g["stages"] for t in s["trials"]]
    # the retry the stop prevented is recorded as never started (skipped), never run
    assert all(t["status"] == "skipped" for t in trials if t["attempt"] > 0)
    assert "failed" not in {t["status"] for t in trials}
    assert (out / "report.md").is_file() and "context_limit" in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("text", "sizes"), [
    (LLAMA, (9000, 2048)),
    ('{"code":400,"message":"x","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}',
     (5000, 4096)),
    ("input (3000 tokens) is larger than the max context size (2048 tokens). skipping", (3000, 2048)),
    (VLLM, (5000, 4096)),
    (OPENAI, (9100, 8192)),
])
def test_context_refusals_are_recognised_with_their_sizes(text: str, sizes: tuple[int, int]) -> None:
    assert is_context_refusal(text)
    assert context_sizes(text) == sizes


@pytest.mark.parametrize("text", ["This model does not support assistant message prefill.",
                                  "rate limit reached", "invalid tool schema: context_state"])
def test_other_refusals_are_not_context_refusals(text: str) -> None:
    assert not is_context_refusal(text)


def test_a_bad_request_worded_as_a_context_refusal_is_not_retried() -> None:
    """litellm maps only some wordings to ContextWindowExceededError; the others are caught by text."""
    litellm, _ = ensure_litellm()
    plain = litellm.BadRequestError(message=f"OpenAIException - {LLAMA}", model="openai/qwen", llm_provider="openai")
    assert classify(plain, litellm).decision == "context_window"
    wrapped = litellm.APIError(status_code=400, message=VLLM, llm_provider="openai", model="openai/qwen")
    assert classify(wrapped, litellm).decision == "context_window"
    other = litellm.BadRequestError(message="must end with a user message", model="m", llm_provider="openai")
    assert classify(other, litellm).decision == "provider_rejected"
