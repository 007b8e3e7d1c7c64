"""Budget overrides on the command line: ``--max-total-tokens`` and ``--max-llm-calls`` (beside
``--max-usd``) replace the plan's caps, are the shared pool of a sweep, are recorded and restored on
``--resume``, show in the dry run and in report.json. A run stopped at a cap says which cap, its limit
and what was spent, and its resume hint raises that cap: the same cap would stop the resume at once
(before: the two-model sweep of the fixed plan stopped at budget_exhausted:totalTokens, and the
printed resume made 1 call and stopped again)."""

from __future__ import annotations

import json
import math
import re
import shlex
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.results import read_sweep
from harness.runner import _budget, budget_stop
from tests.harness.conftest import SWEEP_CAPS, SWEPT
from tests.harness.runner._run import FIXED_PLAN

V1_SIMPLE = ["--group", "v1", "--stage", "simple"]  # 3 oracle calls, ~5,000 tokens


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def _hint(text: str) -> list[str]:
    """The printed resume command's arguments after ``harness``."""
    found = re.search(r"continue with: harness (run .*?)(?: error:|$)", text)
    assert found, text
    return shlex.split(found.group(1))


def test_a_run_stopped_at_a_cap_names_it_and_its_resume_raises_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = _cli("run", str(FIXED_PLAN), *V1_SIMPLE, "--max-total-tokens", "3000", "--out", str(out))
    assert code == 3, text
    spent = json.loads((out / "report.json").read_text(encoding="utf-8"))["budget"]
    assert spent["limits"]["maxTotalTokens"] == 3000 and spent["limits"]["maxLlmCalls"] == 400  # the plan's
    used = spent["spent"]["inputTokens"] + spent["spent"]["outputTokens"]
    assert (f"stopped at a cap: the run's maxTotalTokens is 3,000 tokens and {used:,} tokens were spent; a resume "
            "counts what was spent, so with the same cap it would stop again at once") in text
    assert _hint(text) == ["run", str(FIXED_PLAN), "--resume", str(out), "--max-total-tokens", "6000"]
    settings = json.loads((out / "run.json").read_text(encoding="utf-8"))["settings"]
    assert (settings["maxTotalTokens"], settings["maxLlmCalls"]) == (3000, None)

    code, text = _cli("run", str(FIXED_PLAN), "--resume", str(out))  # the recorded cap is restored...
    assert code == 3 and "maxTotalTokens is 3,000 tokens" in text, text
    again = json.loads((out / "report.json").read_text(encoding="utf-8"))["budget"]["spent"]
    assert again["llmCalls"] == spent["spent"]["llmCalls"]  # ...and, as said, stops again at once

    code, text = _cli("run", str(FIXED_PLAN), "--resume", str(out), "--max-total-tokens", "20000")
    assert code == 0, text
    assert "continue with" not in text and "stopped at a cap" not in text
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["status"] == "completed" and report["budget"]["limits"]["maxTotalTokens"] == 20000
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["settings"]["maxTotalTokens"] == 20000


def test_a_sweep_shares_the_command_lines_call_cap_and_its_hinted_resume_finishes(tmp_path: Path) -> None:
    out = tmp_path / "D"
    models = ["--model", "scripted/oracle", "--model", "scripted/last-user-follower"]
    code, text = _cli("run", str(FIXED_PLAN), *models, *V1_SIMPLE, "--max-llm-calls", "4", "--out", str(out))
    assert code == 3, text
    sweep = read_sweep(out)
    assert sweep.stopReason == "budget_exhausted:llmCalls" and sweep.budget.limits.maxLlmCalls == 4
    assert sweep.budget.spent.llmCalls <= 4
    assert (f"stopped at a cap: the sweep's shared maxLlmCalls is 4 model calls and {sweep.budget.spent.llmCalls} "
            "model calls were spent") in text
    hint = _hint(text)
    assert hint == ["run", str(FIXED_PLAN), "--resume", str(out), "--max-llm-calls", "8"]
    assert json.loads((out / "settings.json").read_text(encoding="utf-8"))["maxLlmCalls"] == 4
    code, text = _cli(*hint)  # exactly what was printed
    assert code == 0, text
    sweep = read_sweep(out)
    assert sweep.status == "completed" and sweep.budget.limits.maxLlmCalls == 8
    assert json.loads((out / "settings.json").read_text(encoding="utf-8"))["maxLlmCalls"] == 8


def test_the_dry_run_shows_the_caps_and_which_the_command_line_set(tmp_path: Path) -> None:
    code, text = _cli("run", str(FIXED_PLAN), "--dry-run", "--max-llm-calls", "50", "--out", str(tmp_path / "x"))
    assert code == 0 and "budget: maxUsd 5, maxTotalTokens 600,000, maxLlmCalls 50 (command line)" in text, text
    code, text = _cli("run", str(FIXED_PLAN), "--dry-run", "--model", SWEPT[0], "--model", SWEPT[1], *SWEEP_CAPS,
                      "--out", str(tmp_path / "y"))
    assert code == 0 and ("one shared budget over all models: maxUsd 5, maxTotalTokens 1,200,000 (command line), "
                          "maxLlmCalls 800 (command line)") in text, text
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_a_cap_without_an_option_says_a_resume_cannot_continue() -> None:
    stop = budget_stop("budget_exhausted:inputTokens", {"maxInputTokens": 5000}, {"inputTokens": 4100})
    assert stop is not None and stop.option == []
    assert "maxInputTokens is 5,000 tokens and 4,100 tokens were spent" in stop.text
    assert "no command-line override, so a resume cannot continue" in stop.text
    usd = budget_stop("budget_exhausted:usd", {"maxUsd": 2.5}, {"usd": 2.4})
    assert usd is not None and usd.option == ["--max-usd", "5"]
    assert budget_stop("provider_unhealthy", {}, {}) is None and budget_stop(None, {}, {}) is None


@pytest.mark.parametrize("doc", ["README.md", "docs/sweeps.md"])
def test_the_documented_sweep_command_is_the_one_the_fixture_runs(doc: str) -> None:
    """The sweep example of the README and of the sweeps page (run by ``fixed_sweep``, which must finish with
    exit 0) raises the shared caps: the fixed plan's 600,000 tokens fit one oracle run, not two models."""
    text = (Path(__file__).parents[3] / doc).read_text(encoding="utf-8")
    pattern = r"\.venv/bin/harness run (plans/unified-mapping-ab-20261005/experiment-plan\.json(?:[^\n#]*\\\n)*[^\n#]*)"
    commands = [shlex.split(c.replace("\\\n", " ")) for c in re.findall(pattern, text)]
    [sweep] = [args for args in commands if args.count("--model") == 2]
    assert sweep[1:5] == ["--model", SWEPT[0], "--model", SWEPT[1]]
    assert sweep[5:9] == SWEEP_CAPS and sweep[9] == "--out"


class _FastClock:
    """The budget's wall clock, ``step`` s further ahead at each reading: a group of the fixed plan
    outlasts a 1 s cap after a few calls on any machine, with no real second waited."""

    def __init__(self, step: float) -> None:
        self.step, self.ahead = step, 0.0

    def monotonic(self) -> float:
        self.ahead += self.step
        return time.monotonic() + self.ahead


def test_a_run_stopped_by_the_wall_clock_resumes_with_a_raised_wall_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume counts the time already run, so a run stopped at wall_clock needs --max-wall-seconds
    (before: 'no command-line override, so a resume cannot continue'). One group (v1, every stage) is
    the run; the resume restores that selection, so its hint carries only the raised cap."""
    clock = _FastClock(0.25)
    monkeypatch.setattr(_budget, "time", clock)
    out = tmp_path / "run"
    code, text = _cli("run", str(FIXED_PLAN), "--group", "v1", "--concurrency", "1", "--max-wall-seconds", "1",
                      "--out", str(out))
    assert code == 3, text
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["stopReason"] == "wall_clock" and report["budget"]["limits"]["maxWallSeconds"] == 1
    assert "stopped at a cap: the run's maxWallSeconds is 1 s and" in text, text
    hint = _hint(text)  # what was used plus the limit again, at least 60 s more: twice 1 s would go on starting up
    assert hint[:5] == ["run", str(FIXED_PLAN), "--resume", str(out), "--max-wall-seconds"]
    used = report["budget"]["spent"]["wallSeconds"]
    assert int(hint[5]) == math.ceil(used + 60) and len(hint) == 6
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["settings"]["maxWallSeconds"] == 1

    clock.step = 0.0  # the resume runs on real time
    code, text = _cli(*hint)  # exactly what was printed
    assert code == 0, text
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["status"] == "completed" and report["budget"]["limits"]["maxWallSeconds"] == int(hint[5])
    assert {g["id"] for g in report["groups"]} == {"v1"}  # the selection was restored, not widened
    assert report["budget"]["spent"]["wallSeconds"] > 1  # the first stretch counts on


def test_the_resume_hint_also_raises_another_cap_that_is_nearly_spent() -> None:
    """Raising only the cap that fired let the resume stop at the next one at once (tokens, then wall clock)."""
    limits = {"maxTotalTokens": 10_000, "maxWallSeconds": 16, "maxLlmCalls": 400}
    spent = {"inputTokens": 9_500, "outputTokens": 600, "wallSeconds": 15.9, "llmCalls": 30}
    stop = budget_stop("budget_exhausted:totalTokens", limits, spent)
    assert stop is not None and stop.option == ["--max-total-tokens", "20000", "--max-wall-seconds", "76"]
    assert "and maxWallSeconds (16 s of 16 s), nearly spent too, is raised likewise" in stop.text
    calls_only = budget_stop("budget_exhausted:llmCalls", {"maxLlmCalls": 10, "maxWallSeconds": 3600},
                             {"llmCalls": 10, "wallSeconds": 12.0})
    assert calls_only is not None and calls_only.option == ["--max-llm-calls", "20"]  # the clock is far from its cap
