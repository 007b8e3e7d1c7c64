"""A recorded fixed-plan run against a real small model (data/qwen-fixed-plan: Qwen2.5-Coder-0.5B under
llama.cpp), re-judged with ``harness rescore``: its report.md uses "control" in one sense, explains the
skipped repeats, has no caveat that does not apply, and says that A's and v2's prefill trials hold nothing
the model produced (the recorded answers stay as the server returned them)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

RECORDED = Path(__file__).parent / "data" / "qwen-fixed-plan"


def _rescored(tmp_path: Path, *options: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    run = tmp_path / "run"
    shutil.copytree(RECORDED, run)
    result = CliRunner().invoke(app, ["rescore", str(run), *options])
    assert result.exit_code == 0, result.output
    (out,) = (run / "rescored").iterdir()
    return json.loads((out / "report.json").read_text(encoding="utf-8")), (out / "report.md").read_text(
        encoding="utf-8")


def test_a_report_written_before_keeps_its_test_unless_asked(tmp_path: Path) -> None:
    """The recording's report predates the test choice: its p-values were Fisher's, and a rescore keeps them
    Fisher's; ``--test boschloo`` re-states them with Boschloo's, and says so."""
    report, md = _rescored(tmp_path / "kept")
    assert report["design"]["test"] == "fisher" and {c["test"] for c in report["comparisons"]} == {"fisher"}
    assert any("The p-values are Fisher's test, as in the report re-scored." in c for c in report["caveats"])
    assert "| Fisher |" in md
    report, _ = _rescored(tmp_path / "asked", "--test", "boschloo")
    assert report["design"]["test"] == "boschloo" and {c["test"] for c in report["comparisons"]} == {"boschloo"}
    assert any("Boschloo's test, as asked (the report re-scored used Fisher's)." in c for c in report["caveats"])


def test_a_recorded_local_run_rescored_reads_with_one_meaning_per_word(tmp_path: Path) -> None:
    report, md = _rescored(tmp_path)
    # "control" only as "placement control" (A) or "sentinel control" (v1); rule ids (control-failed) aside
    bare = [line for line in md.splitlines()
            if re.search(r"(?<![-\w])control(?![-\w])", re.sub(r"(placement|sentinel) control", "", line))]
    assert bare == []
    assert "| A | placement control | unified@3 |" in md and "| v1 | sentinel control | unified@1 |" in md
    assert "The sentinel control v1 (unified@1) failed simple (rests on simple: v1 0/2)" in md
    # every group's third repeat: skipped, and why
    assert md.count("1 repeat skipped: fail-fast after 2 failures") == 5
    # a run in which every group failed disclaims no stability; no baseline comparison, no P-91 caveat
    caveats = report["caveats"]
    assert not any("no guarantee of production stability" in c for c in caveats)
    assert any(c.startswith("Real-model run: no group passed any stage") for c in caveats)
    assert not any("(P-91)" in c for c in caveats)


def test_the_prefill_trials_say_the_model_produced_nothing(tmp_path: Path) -> None:
    report, md = _rescored(tmp_path)
    trials = {t["id"]: t for g in report["groups"] for s in g["stages"] for t in s["trials"]}
    for group in ("A", "v2"):
        trial = trials[f"{group}/simple/1"]
        assert trial["failureMode"] == "prefill_returned"
        assert trial["failureDetail"].startswith("turn 1: the model produced nothing after the prefill")
        assert trial["runs"][0]["finalAnswer"].startswith("[context_state]")  # kept as the server returned it
    assert "failed: prefill_returned ×2" in md
    assert trials["C/simple/1"]["failureMode"] == "state_echo"  # the user-role state is the model's own copy
