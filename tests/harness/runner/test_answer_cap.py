"""What is kept of a model answer is capped (issue 10, breakage 8): a server ignoring ``max_tokens``
returned three 20 MB answers and the run wrote 423 MB (report.html 126 MB) in 1 GB of memory.

The fake server here is OpenAI-compatible and ignores ``max_tokens``: it answers by repeating the
request's last user message until the answer is ``BLOAT`` characters long (decided from the
request, as a runaway model would). The run stays small, the cut is marked, the trial fails
``truncated``."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from harness.models import MAX_ANSWER_CHARS, MAX_TOOL_CALLS, ModelOutput, Prices, ToolCallOut, Usage, cap_output
from harness.rendering._transcripts import EMBED_PER_TRIAL, EMBED_TEXT
from tests.harness.runner._run import run_plan

BLOAT = 3_000_000
MODEL = "openai/bloat"


def _bloated(request: dict[str, Any]) -> dict[str, Any]:
    asked = next(str(m.get("content")) for m in reversed(request["messages"]) if m.get("role") == "user")
    text = (asked + " ") * (BLOAT // (len(asked) + 1) + 1)
    return {"id": "chatcmpl-bloat", "object": "chat.completion", "created": 0, "model": request.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text[:BLOAT]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": BLOAT // 4, "total_tokens": 100 + BLOAT // 4}}


@contextmanager
def _server() -> Iterator[str]:
    async def completions(request: web.Request) -> web.Response:
        return web.json_response(_bloated(await request.json()))

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", completions)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def test_a_server_ignoring_max_tokens_leaves_a_small_run_and_a_truncated_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-local-server-key")
    out = tmp_path / "run"
    with _server() as url:
        outcome = run_plan(out, MODEL, api_base=url, groups=["A"], stages=["simple"], render=True,
                           prices={MODEL: Prices(input_per_mtok=0, output_per_mtok=0)})
    trials = [t for g in outcome.report.groups for s in g.stages for t in s.trials]
    # the first answer is cut and fails; fail-fast may skip the repeats not yet started (the budget
    # runs a model's calls one at a time until its first usage report calibrates the estimate)
    failed = [t for t in trials if t.status == "failed"]
    assert failed and {t.status for t in trials} <= {"failed", "skipped"}
    for trial in failed:
        assert trial.failureMode == "truncated", trial.failureDetail
        cut = [c for c in trial.checks if c.name == "answer_within_output_cap"]
        assert cut and cut[0].result == "failed"
        assert f"{BLOAT:,} characters, at most {MAX_ANSWER_CHARS:,} kept" in cut[0].detail
        answer = trial.runs[0].finalAnswer or ""
        assert len(answer) <= MAX_ANSWER_CHARS
        assert "[harness: answer cut here: " in answer
        assert answer.endswith(f" of {BLOAT:,} characters kept (MAX_ANSWER_CHARS)]")
    transcript = (out / "transcripts" / "A" / "simple" / "1.jsonl").read_text(encoding="utf-8")
    response = json.loads(transcript.splitlines()[-1])["response"]
    assert response["finishReason"] == "length" and f"{BLOAT:,} characters" in response["cut"]
    # three 3 MB answers of 3-byte characters: bounded output (before the cap: 133 MB, every answer
    # stored whole in the store, the transcript, trials.jsonl and report.json; metrics.duckdb is ~2.4 MB
    # of fixed DuckDB blocks whatever the answers)
    assert _size(out) - (out / "metrics.duckdb").stat().st_size < 4_000_000
    assert (out / "report.html").stat().st_size < 3 * (EMBED_PER_TRIAL + 100_000)
    assert "more characters not shown in this report" in (out / "report.html").read_text(encoding="utf-8")
    # what the run keeps in memory is the capped records, not the answers (one answer is parsed at a time)
    assert sum(len(r.model_dump_json()) for r in outcome.experiment.records) < 3 * 4 * MAX_ANSWER_CHARS


def test_cap_output_cuts_text_arguments_and_calls_and_marks_the_cut() -> None:
    whole = ModelOutput(content="ok", tool_calls=[ToolCallOut(id="c1", name="t", arguments="{}")],
                        finish_reason="stop", usage=Usage(output_tokens=1))
    assert cap_output(whole) is whole  # nothing over the caps: untouched
    big = ModelOutput(content="x" * (MAX_ANSWER_CHARS + 10), finish_reason="stop", raw_response={"huge": "x"},
                      tool_calls=[ToolCallOut(id=f"c{i}", name="t", arguments='{"a": "' + "y" * MAX_ANSWER_CHARS + '"}')
                                  for i in range(MAX_TOOL_CALLS + 3)])
    capped = cap_output(big)
    assert capped.finish_reason == "length" and capped.raw_response is None
    assert capped.content is not None and len(capped.content) <= MAX_ANSWER_CHARS
    kept = len(capped.content.split("\n[harness: answer cut here: ")[0])
    assert capped.content.startswith("x" * kept)
    assert f"{kept:,} of {MAX_ANSWER_CHARS + 10:,} characters kept" in capped.content
    assert len(capped.tool_calls) == MAX_TOOL_CALLS
    assert all("[harness: arguments cut here" in c.arguments for c in capped.tool_calls)  # no longer valid JSON
    assert capped.cut and f"tool calls: {MAX_TOOL_CALLS + 3}" in capped.cut and "answer text" in capped.cut
    assert cap_output(capped) is capped  # within the caps, marker included: never cut twice


def test_report_html_clips_each_text_and_each_trial() -> None:
    from harness.rendering._transcripts import trial_views

    long = "z" * (EMBED_TEXT * 3)
    snaps = [{"seq": n, "id": f"s/{n}", "request": {"messages": [{"role": "user", "content": long}]},
              "response": {"content": long}} for n in range(1, 40)]
    report = {"groups": [{"id": "A", "stages": [{"id": "simple", "trials": [
        {"id": "A/simple/1", "transcript": "transcripts/A/simple/1.jsonl",
         "runs": [{"input": "q", "finalAnswer": long}], "checks": []}]}]}]}
    views = trial_views(report, {"A/simple/1": snaps})
    texts = [views[0]["runs"][0]["finalAnswer"]] + [m["content"] for s in views[0]["snapshots"] for m in s["messages"]]
    texts += [s["response"]["content"] for s in views[0]["snapshots"]]
    assert max(len(t) for t in texts) < EMBED_TEXT + 200
    assert sum(len(t) for t in texts) < EMBED_PER_TRIAL + 200 * len(texts)
    assert "transcripts/A/simple/1.jsonl has the whole text" in texts[-1]
