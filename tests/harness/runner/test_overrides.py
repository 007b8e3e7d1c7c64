"""Quick overrides (issue 13): ``--temperature``, ``--seed``, ``--repeats STAGE=N`` are applied to the
plan before it runs, recorded in report.json as overrides of the plan (and shown in the reports),
and ``--resume`` never mixes trials of two settings."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import parse_plan
from harness.results import read_report
from harness.runner import ResumeRefused, RunRequest, execute
from harness.runner._overrides import OverrideError, OverrideSpec, apply_overrides
from tests.harness.runner._run import FIXED_PLAN, plan_data, run_plan


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def overridden(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("overrides") / "run"
    code, output = _run(str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--temperature", "0.7", "--seed", "11",
                        "--repeats", "simple=2", "--concurrency", "4", "--out", str(out))
    return out, code, output


def test_overrides_change_the_run_and_are_recorded_as_overrides_of_the_plan(overridden: tuple[Path, int, str]) -> None:
    out, code, output = overridden
    assert code == 0, output
    report = read_report(out / "report.json")
    got = [(o.path, o.option, o.plan, o.value) for o in report.overrides]
    assert got == [("$.models.sampling.temperature", "--temperature 0.7", 0.0, 0.7),
                   ("$.models.sampling.seed", "--seed 11", None, 11),
                   ("$.stages[0].repeats", "--repeats simple=2", 3, 2)]
    assert report.model.sampling["temperature"] == 0.7 and report.model.sampling["seed"] == 11
    stage = report.groups[0].stages[0]
    assert (stage.passRate.n, len(stage.trials)) == (2, 2)  # two repeats, not the plan's three
    assert stage.label == "simple budget question, 2 repeats"  # the plan's label said "3 repeats"
    for name in ("report.md", "report.html"):
        assert "3 repeats" not in (out / name).read_text(encoding="utf-8")
    sent = [json.loads(line)["request"]["params"]["temperature"]
            for path in (out / "transcripts").rglob("*.jsonl") for line in path.read_text().splitlines()]
    assert sent and set(sent) == {0.7}  # every request went out at the overridden temperature
    assert report.plan.sha256 == json.loads((out / "run.json").read_text())["planSha256"]  # the file's sha
    assert json.loads((out / "run.json").read_text())["overrides"] == {"temperature": 0.7, "seed": 11,
                                                                       "repeats": {"simple": 2}}
    assert any("command-line overrides: --temperature 0.7, --seed 11, --repeats simple=2" in c for c in report.caveats)
    assert "overrides of the plan: --temperature 0.7 ($.models.sampling.temperature: plan 0.0, ran 0.7)" in output
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "**Overrides of the plan** (command line): `--temperature 0.7`" in md and "`--repeats simple=2`" in md
    assert "<b>Overrides of the plan</b>" in (out / "report.html").read_text(encoding="utf-8")


def test_resume_with_other_overrides_is_refused_and_without_any_reuses_them(overridden: tuple[Path, int, str]) -> None:
    out, _, _ = overridden
    code, output = _run(str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--repeats", "simple=3",
                        "--resume", str(out))
    assert code == 2
    assert f"{out} ran with --temperature 0.7, --seed 11, --repeats simple=2; this resume gives --repeats " \
           "simple=3: a run never mixes trials of two settings" in output
    code, output = _run(str(FIXED_PLAN), "--group", "A", "--stage", "simple", "--resume", str(out))
    assert code == 0, output  # none given: the recorded ones apply, nothing is left to run
    report = read_report(out / "report.json")
    assert [o.option for o in report.overrides] == ["--temperature 0.7", "--seed 11", "--repeats simple=2"]
    assert len(report.groups[0].stages[0].trials) == 2


def test_the_runner_refuses_a_resume_whose_overrides_differ(tmp_path: Path) -> None:
    """The library's own guard, under the CLI's: execute() compares with run.json."""
    first = run_plan(tmp_path / "run", groups=["v1"], stages=["simple"])
    plan, sha = parse_plan(plan_data())
    spec = OverrideSpec(seed=5)
    request = RunRequest(plan=apply_overrides(plan, spec)[0], plan_sha256=sha, plan_path=str(FIXED_PLAN),
                         settings=dataclasses.replace(first.experiment.settings), out_dir=first.run_dir, resume=True,
                         render=False, override_spec=spec)
    with pytest.raises(ResumeRefused, match="ran with no overrides; this resume gives --seed 5"):
        asyncio.run(execute(request))


@pytest.mark.parametrize(("args", "says"), [
    (["--temperature", "3"], "--temperature 3: $.models.sampling.temperature: Input should be less than or equal to 2"),
    (["--repeats", "simple=0"], "--repeats simple=0: $.stages[0].repeats: Input should be greater than or equal to 1"),
    (["--repeats", "simpel=2"], "--repeats simpel=2: no such stage (the plan has simple, tool_continuation,"),
    (["--repeats", "simple"], "--repeats simple: expected STAGE=N, e.g. simple=5"),
    (["--repeats", "simple=two"], "--repeats simple=two: 'two' is not a whole number"),
])
def test_an_override_the_plan_cannot_take_exits_2_naming_the_option(args: list[str], says: str) -> None:
    code, output = _run(str(FIXED_PLAN), *args, "--dry-run")
    assert code == 2 and says in output, output


def test_overrides_are_validated_like_the_plan() -> None:
    plan, _ = parse_plan(plan_data())
    new, overrides = apply_overrides(plan, OverrideSpec(repeats={"conversation": 5}))
    assert new.stage("conversation").repeats == 5 and plan.stage("conversation").repeats == 2
    assert [o.path for o in overrides] == ["$.stages[2].repeats"]
    assert new.stage("conversation").label == plan.stage("conversation").label  # it names no count: kept
    one, _ = apply_overrides(plan, OverrideSpec(repeats={"simple": 1, "tool_continuation": 4}))
    assert (one.stage("simple").label, one.stage("tool_continuation").label) == (
        "simple budget question, 1 repeat", "continue after a tool result, 4 repeats")
    with pytest.raises(OverrideError, match="--repeats simple=101: .*less than or equal to 100"):
        apply_overrides(plan, OverrideSpec(repeats={"simple": 101}))
    assert apply_overrides(plan, OverrideSpec()) == (plan, [])
