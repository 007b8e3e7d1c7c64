"""CI gating (issue 13, must show 3): ``--expect GROUP:STAGE=STATUS`` (and the plan's ``expect``)
make ``harness run`` exit 4 when a stage ends otherwise, listing the unmet ones; ``--junit FILE``
writes JUnit XML with one test case per trial."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.results import read_report, read_sweep
from tests.harness.runner._run import FIXED_PLAN, plan_data

PREFILL = "scripted/prefill-continuer"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """Prefill-continuer on groups A and B, stage simple: A fails (its state block is continued), B passes."""
    root = tmp_path_factory.mktemp("gate")
    code, output = _run(str(FIXED_PLAN), "--model", PREFILL, "--group", "A", "--group", "B", "--stage", "simple",
                        "--expect", "A:simple=passed", "--expect", "B:simple=passed", "--junit", str(root / "out.xml"),
                        "--concurrency", "8", "--out", str(root / "run"))
    return root, code, output


def test_expect_passed_on_prefill_continuer_exits_4_and_lists_the_unmet_one(gated: tuple[Path, int, str]) -> None:
    root, code, output = gated
    assert code == 4, output
    assert "expectations: 1 of 2 unmet" in output
    assert "unmet A:simple=passed: expected passed, was failed" in output
    assert "met B:simple=passed: expected passed, was passed" in output
    report = read_report(root / "run" / "report.json")
    got = [(e.text, e.actual, e.met, e.source) for e in report.expectations]
    assert got == [("A:simple=passed", "failed", False, "cli"), ("B:simple=passed", "passed", True, "cli")]
    md = (root / "run" / "report.md").read_text(encoding="utf-8")
    assert "**Expectations (CI gate):** 1 of 2 unmet: the run exits 4" in md
    assert "| A | simple | passed | failed | **unmet** | --expect |" in md
    html = (root / "run" / "report.html").read_text(encoding="utf-8")
    head = html[:html.index("</section>")]
    assert "1 of 2 unmet: the run exits 4" in head and '<td class="failed">unmet</td>' in head


def test_junit_has_one_testcase_per_trial_with_failure_modes_and_checks(gated: tuple[Path, int, str]) -> None:
    root, _, _ = gated
    report = read_report(root / "run" / "report.json")
    trials = {t.id: (g.id, s.id, t) for g in report.groups for s in g.stages for t in s.trials}
    tree = ET.parse(root / "out.xml")  # well-formed XML, or this raises
    suites = tree.getroot()
    assert suites.tag == "testsuites" and [s.tag for s in suites] == ["testsuite"]
    cases = suites.findall("testsuite/testcase")
    assert sorted(c.get("name") for c in cases) == sorted(trials)  # one test case per trial, no more
    failed = [t for _, _, t in trials.values() if t.status == "failed"]
    assert suites.get("tests") == str(len(trials)) and suites.get("failures") == str(len(failed)) == "3"
    for case in cases:
        group, stage, trial = trials[str(case.get("name"))]
        assert case.get("classname") == f"{group}.{stage}"
        failure = case.find("failure")
        assert (failure is not None) == (trial.status == "failed")
        if failure is not None:
            assert failure.get("type") == trial.failureMode == "state_echo"
            assert str(failure.get("message")).startswith("state_echo: answer_contains: missing")
            assert "check answer_contains (turn 1) failed: missing" in str(failure.text)
    props = {p.get("name"): p.get("value") for p in suites.findall("testsuite/properties/property")}
    assert props["expect A:simple=passed"] == "unmet: was failed" and props["model"] == PREFILL


def test_expect_failed_on_prefill_continuer_exits_0(tmp_path: Path) -> None:
    code, output = _run(str(FIXED_PLAN), "--model", PREFILL, "--group", "A", "--stage", "simple",
                        "--expect", "A:simple=failed", "--concurrency", "4", "--out", str(tmp_path / "run"))
    assert code == 0, output
    assert "expectations: all 1 met" in output


def test_plan_expect_applies_and_expect_on_the_command_line_wins(tmp_path: Path) -> None:
    data = plan_data()
    data["expect"] = ["A:simple=passed", "A:tool_continuation=passed"]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(data), encoding="utf-8")
    code, output = _run(str(plan), "--model", PREFILL, "--group", "A", "--stage", "simple", "--expect",
                        "A:simple=failed", "--concurrency", "4", "--out", str(tmp_path / "run"))
    assert code == 4, output  # A:tool_continuation was left out by --stage: a gate never passes on nothing
    assert "unmet A:tool_continuation=passed: expected passed, was not_selected (left out by --group/--stage" in output
    got = [(e.text, e.actual, e.met, e.source) for e in read_report(tmp_path / "run" / "report.json").expectations]
    assert got == [("A:tool_continuation=passed", "not_selected", False, "plan"),
                   ("A:simple=failed", "failed", True, "cli")]


def test_stopped_early_and_unmet_exits_3_and_still_lists_the_unmet(tmp_path: Path) -> None:
    data = plan_data()
    data["budget"]["maxLlmCalls"] = 1
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(data), encoding="utf-8")
    code, output = _run(str(plan), "--model", PREFILL, "--group", "B", "--stage", "simple",
                        "--expect", "B:simple=passed", "--concurrency", "1", "--out", str(tmp_path / "run"))
    assert code == 3, output  # the verdicts are not final: resume, then 0 or 4
    assert "unmet B:simple=passed: expected passed, was skipped" in output
    md = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "(the run stopped early and exits 3: these are not final)" in md


@pytest.mark.parametrize(("value", "says"), [
    ("Z:simple=passed", "--expect Z:simple=passed: unknown group 'Z' (the plan has A, B, C, v2, v1, prefix)"),
    ("A:simpel=passed", "unknown stage 'simpel' (the plan has simple, tool_continuation, conversation)"),
    ("A:simple=green", "unknown status 'green' (a stage ends passed, failed, inconclusive, skipped, not_reached)"),
    ("A=simple", "'A=simple' is not GROUP:STAGE=STATUS, e.g. A:simple=passed"),
    ("prefix:simple=passed", "group 'prefix' does not take part in stage 'simple'"),
])
def test_an_unknown_group_stage_or_status_exits_2_naming_it(value: str, says: str, tmp_path: Path) -> None:
    code, output = _run(str(FIXED_PLAN), "--expect", value, "--out", str(tmp_path / "run"))
    assert code == 2 and says in output, output
    assert not (tmp_path / "run").exists()


def test_two_expectations_on_one_stage_exit_2(tmp_path: Path) -> None:
    code, output = _run(str(FIXED_PLAN), "--expect", "A:simple=passed", "--expect", "A:simple=failed", "--dry-run")
    assert code == 2 and "--expect A:simple=failed: A:simple is already expected to be passed" in output


def test_sweep_every_model_must_meet_each_expectation(tmp_path: Path) -> None:
    out = tmp_path / "D"
    code, output = _run(str(FIXED_PLAN), "--model", "scripted/oracle", "--model", PREFILL, "--group", "A",
                        "--stage", "simple", "--expect", "A:simple=passed", "--junit", str(tmp_path / "sweep.xml"),
                        "--concurrency", "4", "--out", str(out))
    assert code == 4, output
    assert "expectations of scripted/oracle: all 1 met" in output
    assert f"expectations of {PREFILL}: 1 of 1 unmet" in output
    sweep = read_sweep(out)
    assert [[e.met for e in m.expectations] for m in sweep.models] == [[True], [False]]
    suites = ET.parse(tmp_path / "sweep.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["scripted/oracle", PREFILL]
    assert [len(s.findall("testcase")) for s in suites] == [3, 3]
    assert all(str(c.get("name")).endswith(f" [{PREFILL}]") for c in suites[1].findall("testcase"))
    md = (out / "sweep.md").read_text(encoding="utf-8")
    assert "## Expectations (CI gate): every model must meet each one" in md
    assert f"| {PREFILL} | A:simple=passed | failed | **unmet** |" in md and "1 unmet over 2 model(s)" in md
    assert "1 unmet over 2 model(s): the sweep exits 4" in (out / "sweep.html").read_text(encoding="utf-8")
    # a sweep keeps its overrides like a run: resuming it with others is refused before anything runs
    code, output = _run(str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--seed", "3", "--resume", str(out))
    assert code == 2 and f"{out} ran with no overrides; this resume gives --seed 3" in output, output


def test_rescore_checks_the_new_plans_expectations(gated: tuple[Path, int, str], tmp_path: Path) -> None:
    root, _, _ = gated
    data = plan_data()
    data["expect"] = ["A:simple=failed"]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(app, ["rescore", str(root / "run"), "--plan", str(plan), "--out", str(tmp_path / "a")])
    assert result.exit_code == 0 and "expectations: all 1 met" in result.output, result.output
    data["expect"] = ["B:simple=failed"]
    plan.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(app, ["rescore", str(root / "run"), "--plan", str(plan), "--out", str(tmp_path / "b")])
    assert result.exit_code == 4, result.output
    assert "unmet B:simple=failed: expected failed, was passed" in " ".join(result.output.split())


def test_junit_into_a_directory_is_refused_before_anything_runs(tmp_path: Path) -> None:
    code, output = _run(str(FIXED_PLAN), "--junit", str(tmp_path), "--out", str(tmp_path / "run"))
    assert code == 2 and f"--junit {tmp_path}: is a directory; name a file" in output
    assert not (tmp_path / "run").exists()
