"""scripts/same_report.py: two report.json files of one plan are the same run apart from timestamps, ids
and durations; any other difference is named by its JSON path (exit 1)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "same_report.py"

REPORT = {
    "schemaVersion": 1, "createdAt": "2026-12-03T17:51:54Z", "experimentId": "e1",
    "budget": {"spent": {"wallSeconds": 5.2, "inputTokens": 100}},
    "groups": [{"id": "A", "stages": [{"id": "simple", "trials": [{
        "sessionId": "A/simple/1#f6e17d3a", "startedAt": "t0", "status": "passed",
        "runs": [{"runId": "f99b5465d0994902987adc16deb6d927", "finalAnswer": "7650"}],
        "checks": [{"name": "answer_contains", "evidence": ["A/simple/1#f6e17d3a/1"], "detail": "ok"}]}]}]}],
}


def _run(tmp_path: Path, before: dict, after: dict) -> subprocess.CompletedProcess[str]:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(before), encoding="utf-8")
    b.write_text(json.dumps(after), encoding="utf-8")
    return subprocess.run([sys.executable, str(SCRIPT), str(a), str(b)], capture_output=True, text=True, check=False)


def test_timestamps_ids_and_durations_are_masked(tmp_path: Path) -> None:
    other = copy.deepcopy(REPORT)
    other.update(createdAt="2026-12-04T00:00:00Z", experimentId="e2")
    other["budget"]["spent"]["wallSeconds"] = 17.0
    trial = other["groups"][0]["stages"][0]["trials"][0]
    trial.update(sessionId="A/simple/1#4f7d85bc", startedAt="t9")
    trial["runs"][0]["runId"] = "da6cbc535185413d8e0a6c079821390f"
    trial["checks"][0]["evidence"] = ["A/simple/1#4f7d85bc/1"]
    result = _run(tmp_path, REPORT, other)
    assert result.returncode == 0, result.stdout
    assert "same report" in result.stdout


def test_any_other_difference_is_named_by_its_path(tmp_path: Path) -> None:
    other = copy.deepcopy(REPORT)
    other["groups"][0]["stages"][0]["trials"][0]["runs"][0]["finalAnswer"] = "7560"
    other["budget"]["spent"]["inputTokens"] = 101
    result = _run(tmp_path, REPORT, other)
    assert result.returncode == 1
    assert "$.groups[0].stages[0].trials[0].runs[0].finalAnswer: '7650' != '7560'" in result.stdout
    assert "$.budget.spent.inputTokens" in result.stdout
    assert "2 difference(s)" in result.stdout
