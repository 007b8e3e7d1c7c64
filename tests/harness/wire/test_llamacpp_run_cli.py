"""``harness run`` over the llama.cpp server emulator (P-80, E-7): the treatment is read from the server.

Through the CLI and litellm's real client, with the same model name (``openai/qwen``) every time: on the
server's default A and v2 are a prefill, with ``--no-prefill-assistant`` a finished message followed by a new
turn; a template that requires alternating roles refuses every group (its Jinja error quoted, nothing sent,
and with ``--send-rejected`` one request whatever the repeats); a server that renders nothing is ``unknown``,
said once. The fixed plan sends nothing the emulator refuses, and every group that can run gets verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from typer.testing import CliRunner

from harness.cli import app
from tests.helpers.emulators import GEMMA, LlamaCppEmulator, running_app

PLAN = Path(__file__).parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
MODEL = "openai/qwen"
STAGES = ("--stage", "simple", "--stage", "tool_continuation", "--repeats", "simple=1",
          "--repeats", "tool_continuation=1")
runner = CliRunner()


def serve(**options: Any) -> Iterator[tuple[LlamaCppEmulator, str]]:
    emulator = LlamaCppEmulator(**options)
    with running_app(emulator.app) as url:
        yield emulator, url + "/v1"


def dry_run(base: str, *extra: str) -> str:
    out = runner.invoke(app, ["run", str(PLAN), "--dry-run", "--model", MODEL, "--api-base", base, *STAGES, *extra],
                        terminal_width=400)
    assert out.exit_code == 0, out.output
    return out.output


def lines(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        for group in ("A", "B", "C", "v2", "v1", "prefix"):
            if line.startswith(f"  {group}: "):
                found[group] = line[len(group) + 4:]
    return found


def run(tmp_path: Path, base: str, *extra: str, stages: tuple[str, ...] = STAGES) -> tuple[dict[str, Any], str, int]:
    out_dir = tmp_path / "run"
    out = runner.invoke(app, ["run", str(PLAN), "--model", MODEL, "--api-base", base, *stages, "--concurrency", "4",
                              "--out", str(out_dir), *extra], terminal_width=400)
    assert (out_dir / "report.json").is_file(), out.output
    return json.loads((out_dir / "report.json").read_text(encoding="utf-8")), out.output, out.exit_code


def test_a_is_read_from_the_server_prefill_by_default_new_turn_without() -> None:
    for emulator, base in serve():
        default = lines(dry_run(base))
        asked = sum(emulator.counts.values())
    for _, base in serve(prefill_assistant=False):
        no_prefill = lines(dry_run(base))
    for group in ("A", "v2"):
        assert default[group].startswith("prefill (local-template-prefill)"), default[group]
        assert "the rendered prompt ends with the state text" in default[group]
        assert no_prefill[group].startswith("ok (local-template-new-turn)"), no_prefill[group]
        assert '"<|im_end|>\\n<|im_start|>assistant\\n" after the state text' in no_prefill[group]
    for group in ("B", "C"):
        assert default[group].startswith("ok (local-template-own-message)"), default[group]
    groups = len(default)  # the groups taking part in these stages
    # once per run; once per group and request (its first, and the tool loop's)
    assert emulator.counts["/props"] == 1 and emulator.counts["/apply-template"] == 2 * groups
    assert asked == 2 * groups + 1 and emulator.exchanges == []  # no chat request: a dry run calls no model


def test_the_run_sends_nothing_the_server_refuses_and_every_group_gets_verdicts(tmp_path: Path) -> None:
    for emulator, base in serve():
        report, _, _ = run(tmp_path, base)
        chats = emulator.counts["/v1/chat/completions"]
    assert emulator.rejections == [] and chats > 0
    treatments = {p["group"]: p["treatment"] for p in report["preflight"]}
    assert treatments["A"] == treatments["v2"] == "prefill" and treatments["B"] == "own_message"
    assert report["preflight"][0]["localServer"]["kind"] == "llama.cpp"
    stages = {(g["id"], s["id"]): s for g in report["groups"] for s in g["stages"]}
    for group in {p["group"] for p in report["preflight"]}:
        simple = stages[(group, "simple")]
        assert simple["passRate"]["n"] == 1 and simple["trials"][0]["status"] in ("passed", "failed"), simple
    assert stages[("A", "simple")]["trials"][0]["failureMode"] is not None  # the prefill is continued, not answered
    assert stages[("C", "simple")]["status"] == "passed"
    rendered = tmp_path / "run" / "rendered" / "A.first.txt"
    assert rendered.read_text(encoding="utf-8").endswith('"recentTool": null}')  # the whole prompt, kept
    entry = next(p for p in report["preflight"] if p["group"] == "A")
    assert entry["rendered"][0]["tail"].endswith('"recentTool": null}') and "prompt" not in entry["rendered"][0]
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "rendered by the server" in html and "local-template-prefill" in html


def test_an_alternation_template_refuses_every_group_before_any_call(tmp_path: Path) -> None:
    for emulator, base in serve(template=GEMMA):
        output = lines(dry_run(base))
        report, console, _ = run(tmp_path, base)
        assert emulator.counts["/v1/chat/completions"] == 0  # predicted, not sent
    assert len(output) >= 5
    for line in output.values():
        assert line.startswith("rejected (local-template-rejected), not sent"), line
        assert "HTTP 500: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/..." in line
    assert all(not p["sent"] and p["treatment"] in ("rejected", None) for p in report["preflight"])
    skipped = [t for g in report["groups"] for s in g["stages"] for t in s["trials"]]
    assert skipped and all(t["status"] == "skipped" and "local-template-rejected" in t["error"] for t in skipped)


def test_the_pinned_build_words_a_template_refusal_as_a_400() -> None:
    for _, base in serve(template=GEMMA, template_error_status=400):
        line = lines(dry_run(base))["C"]
    assert line.startswith("rejected (local-template-rejected), not sent"), line
    assert ("HTTP 400: Unable to generate parser for this template. Automatic parser generation failed: … Error: Jinja "
            "Exception: Conversation roles must alternate user/assistant/user/assistant/...") in line


def test_sent_on_purpose_a_template_refusal_is_one_request_for_all_repeats(tmp_path: Path) -> None:
    for emulator, base in serve(template=GEMMA):
        report, output, _ = run(tmp_path, base, "--group", "A", "--send-rejected",
                                stages=("--stage", "simple", "--repeats", "simple=3"))
        assert emulator.counts["/v1/chat/completions"] == 1  # not retried, and the other repeats not sent
    trials = next(s for g in report["groups"] for s in g["stages"] if g["id"] == "A" and s["id"] == "simple")["trials"]
    assert [t["status"] for t in trials] == ["error"] * 3
    assert all("provider_rejected" in t["error"] for t in trials)
    assert sum("not sent: the provider refused this same request" in t["error"] for t in trials) == 2
    infra = next(i for i in report["infrastructure"] if i["group"] == "A")
    assert infra["retriedTrials"] == 0 and infra["errorKinds"] == {"rejected": 3}
    assert infra["calls"] == 1 and infra["failedAttempts"] == {"rejected": 1} and infra["notSent"] == 2
    assert report["budget"]["spent"]["llmCalls"] == 1  # the two repeats never sent are no model calls
    assert "2 of them not sent at all: the provider had refused the very same request" in output


@pytest.fixture()
def silent_server() -> Iterator[str]:
    """An OpenAI-compatible server that answers none of the rendering questions (no /props, /version, …)."""
    with running_app(web.Application) as url:
        yield url + "/v1"


def test_a_server_that_renders_nothing_is_unknown_said_once(silent_server: str) -> None:
    output = dry_run(silent_server)
    assert output.count("answers none of GET /props (llama.cpp), GET /version (vLLM), GET /get_model_info") == 1
    found = lines(output)
    assert found["A"].startswith("unknown (local-server-unrendered)") and found["v2"].startswith("unknown")
