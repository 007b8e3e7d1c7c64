"""Every command the README and the docs pages show (a line of a fenced block starting ``.venv/bin/``, ``./``,
``scripts/``, ``$ `` or an environment assignment) is accounted for here: run by this module, offline, as
written, with the exit code its comment states (``# exit N``; none: 0) and, where the page quotes what it
prints, that text; or named as run elsewhere, or as needing what a test never has (a provider's key, a
local llama.cpp server, the network), with the reason. A command a page gains that is in none of these
fails, so a new example is run or says why it cannot be.

Paths under ``reports/`` are this module's temporary folder; a ``harness run`` that writes a run directory
without ``--out`` gets one there; the fast server of docs/performance.md listens on a free port."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app

ROOT = Path(__file__).parents[2]
DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```\w*\n(.*?)^```", re.S | re.M)
STARTS = (".venv/bin/", "./", "scripts/", "$ ", "LLAMA_API_BASE=", "PLACEMENT_RUNS=")
FIXED = "plans/unified-mapping-ab-20261005/experiment-plan.json"
SWEEP = (f".venv/bin/harness run {FIXED} --model scripted/oracle --model scripted/prefill-continuer "
         "--max-total-tokens 1200000 --max-llm-calls 800 --out reports/sweep-1")
SERVER = ".venv/bin/harness serve-scripted --port 8099 --latency-ms 200"

ELSEWHERE = {
    "./test.sh": "the suite itself (with ruff, lint-imports and mypy)",
    ".venv/bin/pip install -e '.[docs]'": "installs from PyPI; .ci/run installs the docs extra",
    ".venv/bin/mkdocs build --strict": ".ci/run builds the site with --strict",
    ".venv/bin/mkdocs serve": "a server until Ctrl-C; the build it serves is .ci/run's",
    ".venv/bin/python benchmarks/bench_concurrency.py": "a benchmark: it measures (benchmarks/README.md)",
    SERVER: "started by test_the_fast_server_example_runs, on a free port",
}
NEEDS = {
    "./run.sh --model anthropic/claude-sonnet-4-5 --max-usd 2": "a provider's key",
    f".venv/bin/harness run {FIXED} --stage simple --stage tool_continuation --model anthropic/claude-sonnet-4-5 "
    "--reasoning-effort low": "a provider's key",
    ".venv/bin/harness converse --protocol unified@3 --option stateMessagePlacement=trailing_user --model "
    "anthropic/claude-sonnet-4-5 --input \"项目预算 12000 元，目前已支出 4350 元。还剩多少预算？\"": "a provider's key",
    f".venv/bin/harness run {FIXED} --model anthropic/claude-sonnet-4-5 --cache ~/.cache/placement-responses":
        "a provider's key",
    "scripts/llama_server.sh": "fetches a model and builds llama.cpp (network, minutes)",
    "scripts/local_probe.sh": "fetches, builds and serves a model (network, minutes)",
    "scripts/local_probe.sh --no-prefill-assistant": "fetches, builds and serves a model (network, minutes)",
    ".venv/bin/harness run plans/local-placement-probe/experiment-plan.json --model openai/qwen --api-base "
    "http://127.0.0.1:8080/v1 --concurrency 2": "a local llama.cpp server",
    ".venv/bin/harness run plans/local-placement-probe/experiment-plan.json --model openai/qwen --api-base "
    "http://127.0.0.1:8080/v1 --dry-run": "a local llama.cpp server (the output shown is its answer)",
    ".venv/bin/harness converse --protocol unified@3 --option stateMessagePlacement=trailing_user --model openai/qwen "
    "--api-base http://127.0.0.1:8080/v1 --input \"项目预算 12000 元，目前已支出 4350 元。还剩多少预算？\"":
        "a local llama.cpp server",
    "LLAMA_API_BASE=http://127.0.0.1:8080/v1 .venv/bin/python -m pytest tests/harness/engine/test_real_model.py":
        "a local llama.cpp server",
}
PRINTS = {
    "./run.sh --model anthropic/claude-sonnet-4-5 --dry-run": "A: prefill (claude-trailing-assistant-prefill)",
    ".venv/bin/harness validate plans/unified-mapping-ab-20261005/experiment-plan.json --strict":
        "4 design problem(s)",
    ".venv/bin/harness power --control 0.9 --treatment 0.3": "n = 10 per group",
    ".venv/bin/harness power --control 0.9 --treatment 0.3 --comparisons 2": "n = 11 per group",
    ".venv/bin/harness power --control 0.9 --treatment 0.3 --test fisher": "n = 12 per group",
    ".venv/bin/harness run tests/harness/runner/plans/unreadable-english.json": "no trial reached a verdict",
    ".venv/bin/harness validate plans/local-placement-probe/experiment-plan.json": "design: no problem found",
}
"""Text a command prints that its page quotes (in its comment or its prose)."""


def shown() -> list[tuple[str, str, str]]:
    """(page, command, its comment) for every command line of every fenced block, continuation lines joined."""
    out = []
    for doc in DOCS:
        for block in FENCE.findall((ROOT / doc).read_text(encoding="utf-8")):
            lines = iter(block.splitlines())
            for line in lines:
                if not line.startswith(STARTS):
                    continue
                while line.rstrip().endswith("\\"):
                    line = line.rstrip()[:-1].rstrip() + " " + next(lines).strip()
                command, _, comment = line.removeprefix("$ ").partition("  #")
                out.append((doc, " ".join(command.split()), comment.strip()))
    return out


SHOWN = shown()
FAST_RUN = next(c for _, c, _ in SHOWN if "--api-base http://127.0.0.1:8099/v1" in c)
"""docs/performance.md's run against the fast server (``test_the_fast_server_example_runs``)."""
COMMENTS: dict[str, str] = {}
for _, _command, _comment in SHOWN:
    COMMENTS[_command] = " ".join(filter(None, [COMMENTS.get(_command), _comment]))
RUN = sorted(c for c in COMMENTS if c not in ELSEWHERE and c not in NEEDS and c not in (SWEEP, FAST_RUN))
"""Every other command: run by ``test_the_command_does_what_its_page_says``."""


def test_every_classified_command_is_still_shown() -> None:
    """The lists above name only commands a page shows (a command no list names is run)."""
    stale = (set(ELSEWHERE) | set(NEEDS) | set(PRINTS) | {SWEEP}) - set(COMMENTS)
    assert not stale, f"no page shows these any more: {stale}"
    assert RUN, "no command to run"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The temporary ``reports/``, with the documented sweep run into it first (the notebook, report, compare and
    export examples read it)."""
    folder = tmp_path_factory.mktemp("docs") / "reports"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        code, output = _run(SWEEP, folder)
        assert code == 0, output
        assert (folder / "sweep-1" / "sweep.html").is_file()
        yield folder


def _args(command: str, reports: Path) -> list[str]:
    words = [str(reports / w.removeprefix("reports/")) if w.startswith("reports/") else w
             for w in shlex.split(command)]
    if words[0] == "./run.sh":  # the script's own command: `harness run <its plan> "$@"`
        plan = re.search(r'harness run (\S+) "\$@"', (ROOT / "run.sh").read_text(encoding="utf-8"))
        assert plan is not None
        words = ["run", plan.group(1), *words[1:]]
    else:
        assert words[0] == ".venv/bin/harness", command
        words = words[1:]
    if words[0] == "run" and "--out" not in words and "--dry-run" not in words:
        words += ["--out", str(reports / f"run-{abs(hash(command))}")]
    return words


def _run(command: str, reports: Path) -> tuple[int, str]:
    if command.startswith("PLACEMENT_RUNS="):
        assignment, program, *rest = shlex.split(command)
        runs = assignment.removeprefix("PLACEMENT_RUNS=").replace("reports/", f"{reports}/")
        assert program == ".venv/bin/jupyter"
        done = subprocess.run([str(Path(sys.executable).with_name("jupyter")), *rest], cwd=ROOT, text=True,
                              capture_output=True, env={**os.environ, "PLACEMENT_RUNS": runs}, timeout=300)
        return done.returncode, done.stdout + done.stderr
    result = CliRunner().invoke(app, _args(command, reports), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.output


@pytest.mark.parametrize("command", RUN, ids=[c[:90] for c in RUN])
def test_the_command_does_what_its_page_says(command: str, reports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, output = _run(command, reports)
    stated = re.search(r"\bexit (\d+)", COMMENTS[command])
    assert code == (int(stated.group(1)) if stated else 0), output[-3000:]
    if command in PRINTS:
        assert PRINTS[command] in " ".join(output.split()), output[-3000:]
    if "--junit" in command:
        assert (reports / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")


def test_the_fast_server_example_runs(reports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/performance.md: the scripted server with 200 ms of latency, and a run against it through litellm's
    client with one model worker (the port is a free one, the URL the one the server prints)."""
    server = shlex.split(SERVER.replace("--port 8099", "--port 0"))
    proc = subprocess.Popen([str(Path(sys.executable).with_name("harness")), *server[1:]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
        monkeypatch.chdir(ROOT)
        code, output = _run(FAST_RUN.replace("http://127.0.0.1:8099/v1", url), reports)
        assert code == 0, output[-3000:]
        assert "completed" in output
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
