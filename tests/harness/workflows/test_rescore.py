"""Re-scoring without spending (issue 13): ``harness rescore RUN_DIR --plan P2`` re-judges every
recorded trial with P2's checks and findings, writes a new report next to the old one, never
changes the original evidence, calls no model, and refuses a plan whose turns or groups differ."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import parse_plan
from harness.results import read_report
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from harness.workflows import RescoreRefused, rescore
from tests.harness.runner._run import outcomes, plan_data, run_plan

PLANTED_KEY = "sk-planted-rescore-test-key-6161616161"


def _wrong_number_plan(tmp_path: Path) -> Path:
    """P2: the fixed plan expecting 7560 instead of 7650 in ``simple`` (a typo no group answers)."""
    data = plan_data()
    checks = data["stages"][0]["turns"][0]["checks"]
    assert checks[0] == {"name": "answer_contains", "numbers": [7650]}
    checks[0] = {"name": "answer_contains", "numbers": [7560]}
    path = tmp_path / "p2.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _digests(run_dir: Path) -> dict[str, str]:
    return {str(p.relative_to(run_dir)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(run_dir.rglob("*"))
            if p.is_file() and "rescored" not in p.relative_to(run_dir).parts}


class _NoModel:
    """Stands in for litellm.acompletion: counts every attempt to reach a model, and refuses it."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise AssertionError("a rescore called a model")


def test_wrong_expected_number_fails_every_group_simple_with_zero_model_calls(
    fixed_sweep: tuple[Path, int, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13, must show 2."""
    import litellm

    sweep, code, _ = fixed_sweep
    assert code == 0
    run_dir = sweep / "scripted-prefill-continuer"
    before = _digests(run_dir)
    guard = _NoModel()
    monkeypatch.setattr(litellm, "acompletion", guard)
    result = CliRunner().invoke(app, ["rescore", str(run_dir), "--plan", str(_wrong_number_plan(tmp_path))])
    assert result.exit_code == 0, result.output
    assert guard.calls == 0  # counted where every model call (scripted or real) goes through
    assert "no model was called" in result.output
    [out] = list((run_dir / "rescored").iterdir())  # next to the old report, never over it
    report = read_report(out / "report.json")
    simple = {g.id: s for g in report.groups for s in g.stages if s.id == "simple"}
    assert set(simple) == {"A", "B", "C", "v2", "v1"}
    assert all(s.status == "failed" and s.passRate.passes == 0 and s.passRate.n == 3 for s in simple.values())
    for stage in simple.values():
        for trial in stage.trials:
            check = next(c for c in trial.checks if c.name == "answer_contains")
            assert check.result == "failed" and "7560" in check.detail
    assert {t.failureMode for t in simple["A"].trials} == {"state_echo"}  # the recorded answers, re-classified
    assert {t.failureMode for t in simple["B"].trials} == {"wrong_answer"}
    assert report.findings[0].rule.endswith("control-failed")
    assert report.budget == read_report(run_dir / "report.json").budget  # what the evidence cost, nothing more
    assert any("without any model call" in c for c in report.caveats)
    summary = json.loads((out / "rescore.json").read_text(encoding="utf-8"))
    assert summary["modelCalls"] == 0 and summary["trials"] == 29
    assert {(c["group"], c["stage"], c["after"]) for c in summary["stageChanges"]} >= {
        ("B", "simple", "failed"), ("C", "simple", "failed"), ("v1", "simple", "failed")}
    assert (out / "report.html").is_file() and (out / "transcripts" / "A" / "simple" / "1.jsonl").is_file()
    assert _digests(run_dir) == before  # the original evidence is untouched


def test_the_recorded_plan_reproduces_every_verdict(fixed_sweep: tuple[Path, int, str], tmp_path: Path) -> None:
    """With no --plan the run's own plan judges again, through the same checks: nothing changes, the
    conversation stage's memory, read-back and state checks included."""
    sweep, _, _ = fixed_sweep
    run_dir = sweep / "scripted-oracle"
    original = read_report(run_dir / "report.json")
    outcome = rescore(run_dir, out_dir=tmp_path / "again", render=False)
    assert outcome.changes == [] and outcome.trials_changed == 0
    before = {(t.id, c.name, c.turn): c.result for g in original.groups for s in g.stages for t in s.trials
              for c in t.checks}
    after = {(t.id, c.name, c.turn): c.result for g in outcome.report.groups for s in g.stages for t in s.trials
             for c in t.checks}
    assert after == before and len(after) > 100
    assert [f.rule for f in outcome.report.findings] == [f.rule for f in original.findings]
    assert original.groupDifferences and outcome.report.groupDifferences == original.groupDifferences  # same requests


def test_a_plan_whose_turns_or_groups_differ_is_refused_naming_each_difference(
    fixed_sweep: tuple[Path, int, str], tmp_path: Path
) -> None:
    sweep, _, _ = fixed_sweep
    data = plan_data()
    data["stages"][0]["turns"][0]["input"] = "Budget 12000, spent 4350. How much is left?"
    data["groups"][0]["protocol"]["options"]["checkpointMaxCharacters"] = 2000
    data["stages"][1]["repeats"] = 5
    data["agent"]["inputs"]["customer"] = "ACME Ltd"
    path = tmp_path / "p3.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["rescore", str(sweep / "scripted-oracle"), "--plan", str(path)])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    for where in ("$.stages[0] (simple).turns[0].input", "$.groups[0] (A).protocol", "$.stages[1] (tool_continuation)"
                  ".repeats: 5 here, 2 when recorded", "$.agent.inputs"):
        assert where in text, where
    spelled = plan_data()  # a default spelled out is no difference
    spelled["groups"][0]["protocol"]["options"]["checkpointMaxCharacters"] = 3000
    plan, sha = parse_plan(spelled)
    assert rescore(sweep / "scripted-oracle", plan, sha, out_dir=tmp_path / "ok", render=False).changes == []
    assert CliRunner().invoke(app, ["rescore", str(sweep)]).exit_code == 2  # a sweep names its runs instead


def test_over_http_the_server_is_called_zero_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    with running_server(resolve_model=get_scripted, model="prefill-continuer") as url:
        from harness.models import Prices

        run_plan(tmp_path / "run", "openai/prefill-continuer", api_base=url, groups=["A", "B"], stages=["simple"],
                 prices={"openai/prefill-continuer": Prices(input_per_mtok=0, output_per_mtok=0)})
        served = fetch_stats(url)["requests"]
        result = CliRunner().invoke(app, ["rescore", str(tmp_path / "run"), "--plan", str(_wrong_number_plan(tmp_path)),
                                          "--out", str(tmp_path / "rescored")])
        assert result.exit_code == 0, result.output
        assert fetch_stats(url)["requests"] == served == 6  # 2 groups × 3 repeats, all before the rescore
    report = read_report(tmp_path / "rescored" / "report.json")
    assert {g.id: g.stages[0].status for g in report.groups} == {"A": "failed", "B": "failed"}
    for path in (tmp_path / "rescored").rglob("*"):  # O-30
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path


def test_gating_follows_the_new_checks_and_says_what_the_recording_lacks(tmp_path: Path) -> None:
    first = run_plan(tmp_path / "run", "scripted/prefill-continuer", groups=["A", "B"],
                     stages=["simple", "tool_continuation"], concurrency=16)
    assert outcomes(first)["A"] == {"simple": "failed", "tool_continuation": "not_reached"}
    lenient = plan_data()
    lenient["stages"][0]["turns"][0]["checks"] = [{"name": "run_completed"}]  # any completed answer passes
    plan, sha = parse_plan(lenient)
    outcome = rescore(tmp_path / "run", plan, sha, out_dir=tmp_path / "lenient", render=False)
    got = {g.id: {s.id: s.status for s in g.stages} for g in outcome.report.groups}
    assert got == {"A": {"simple": "passed", "tool_continuation": "skipped"},
                   "B": {"simple": "passed", "tool_continuation": "passed"}}
    assert any(c.startswith("A passes the requirements of tool_continuation with these checks, but the recording "
                            "has no tool_continuation trial") for c in outcome.report.caveats)
    assert any("only groups A, B were selected" in c for c in outcome.report.caveats)


def test_a_run_recorded_without_window_memories_is_refused_for_memory_checks(tmp_path: Path) -> None:
    run_plan(tmp_path / "run", groups=["A"], stages=["conversation"])
    trials = tmp_path / "run" / "trials.jsonl"
    lines = [json.loads(line) for line in trials.read_text(encoding="utf-8").splitlines()]
    trials.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "memories"}) + "\n" for r in lines),
                      encoding="utf-8")
    with pytest.raises(RescoreRefused, match="memory_preserved cannot be re-evaluated"):
        rescore(tmp_path / "run", out_dir=tmp_path / "x", render=False)
