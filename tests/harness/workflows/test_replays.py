"""``harness compare`` on reruns of one plan: a replay (every answer identical) adds no sample; the same
requests answered differently (llama.cpp with two slots: 72 of 100 identical at one seed) mean a
rerun is a new sample and single trials are not reproducible. Runs with other requests (another
seed, another model) are not compared trial by trial."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import FIXED_PLAN

SELECTION = ["--group", "A", "--group", "v1", "--stage", "simple"]  # 2 groups × 3 repeats


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


def _run(out: Path, *extra: str) -> Path:
    code, text = _cli("run", str(FIXED_PLAN), *SELECTION, *extra, "--out", str(out))
    assert code == 0, text
    return out


def _replays(*runs: Path) -> list[dict]:  # type: ignore[type-arg]
    code, text = _cli("compare", *map(str, runs), "--json")
    assert code == 0, text
    return json.loads(text)["replays"]  # type: ignore[no-any-return]


def test_a_rerun_that_replays_every_answer_is_said_to_add_no_sample(tmp_path: Path) -> None:
    first, second = _run(tmp_path / "one" / "run"), _run(tmp_path / "two" / "run")
    (replay,) = _replays(first, second)
    assert (replay["sameRequest"], replay["identicalAnswers"], replay["sameOutcome"]) == (6, 6, 6)
    assert replay["byGroup"] == {g: {"sameRequest": 3, "identicalAnswers": 3, "sameOutcome": 3} for g in ("A", "v1")}
    code, text = _cli("compare", str(first), str(second))
    text = " ".join(text.split())
    assert code == 0 and "two/run (scripted/oracle) against one/run (scripted/oracle)" in text  # folders, not "run"
    assert "6 trials with a verdict in both runs sent byte-identical first requests" in text
    assert "identical in 6 (A 3/3, v1 3/3) and the outcome the same in 6" in text
    assert "the second run adds no new sample, and pooling the two would count each trial twice" in text

    # the same requests answered otherwise (as a server that does not replay its sampling would)
    changed = tmp_path / "changed" / "run"
    shutil.copytree(second, changed)
    with duckdb.connect(str(changed / "metrics.duckdb")) as con:
        con.execute("UPDATE runs SET final_answer = final_answer || ' (resampled)' WHERE trial_id = 'v1/simple/2'")
    (replay,) = _replays(first, changed)
    assert (replay["sameRequest"], replay["identicalAnswers"], replay["sameOutcome"]) == (6, 5, 6)
    code, text = _cli("compare", str(first), str(changed))
    text = " ".join(text.split())
    assert "identical in 5 (A 3/3, v1 2/3) and the outcome the same in 6" in text
    assert "the server did not replay its sampling" in text and "only rates are comparable" in text


def test_runs_with_other_requests_are_not_compared_trial_by_trial(tmp_path: Path) -> None:
    first = _run(tmp_path / "a", "--seed", "1")
    other_seed = _run(tmp_path / "b", "--seed", "2")
    assert _replays(first, other_seed) == []
    code, text = _cli("compare", str(first), str(other_seed))
    assert code == 0 and "byte-identical" not in text


def test_trials_cut_short_are_left_out_not_taken_for_resampling(tmp_path: Path) -> None:
    """A run stopped at a cap has trials cut mid-way: their partial answers say nothing about sampling."""
    tool = ["--group", "A", "--group", "v1", "--stage", "tool_continuation"]
    full = tmp_path / "full"
    code, text = _cli("run", str(FIXED_PLAN), *tool, "--out", str(full))
    assert code == 0, text
    cut = tmp_path / "cut"
    code, text = _cli("run", str(FIXED_PLAN), *tool, "--concurrency", "1", "--max-llm-calls", "5", "--out", str(cut))
    assert code == 3, text  # stopped at the call cap, the third trial after its first call
    (replay,) = _replays(full, cut)
    assert (replay["sameRequest"], replay["identicalAnswers"], replay["leftOut"]) == (2, 2, 1)
    code, text = _cli("compare", str(full), str(cut))
    text = " ".join(text.split())
    assert "(1 more sent the same request but was cut short or ended in an error in one run: left out)" in text
    assert "Every answer was replayed" in text and "did not replay" not in text


def test_two_sweeps_pair_model_by_model_and_other_plans_compare_answers_only(tmp_path: Path) -> None:
    models = ["--model", "scripted/oracle", "--model", "scripted/prefill-continuer"]
    one, two = tmp_path / "x" / "sw", tmp_path / "y" / "sw"  # same folder names: told apart by their parents
    for out in (one, two):
        code, text = _cli("run", str(FIXED_PLAN), *models, "--group", "A", "--stage", "simple", "--out", str(out))
        assert code == 0, text
    replays = _replays(one, two)
    assert [r["runs"] for r in replays] == [["scripted/oracle (x/sw)", "scripted/oracle (y/sw)"],
                                            ["scripted/prefill-continuer (x/sw)", "scripted/prefill-continuer (y/sw)"]]
    assert all(r["identicalAnswers"] == r["sameRequest"] == 3 for r in replays)

    plan = json.loads(FIXED_PLAN.read_text(encoding="utf-8"))  # one check changed: another plan
    simple = next(s for s in plan["stages"] if s["id"] == "simple")
    simple["turns"][0]["checks"][0]["numbers"] = [1234]
    other = tmp_path / "other-plan.json"
    other.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    first = _run(tmp_path / "a" / "run")
    code, text = _cli("run", str(other), *SELECTION, "--out", str(tmp_path / "b" / "run"))
    assert code == 0, text
    (replay,) = _replays(first, tmp_path / "b" / "run")
    assert replay["samePlan"] is False and replay["sameOutcome"] is None
    assert replay["identicalAnswers"] == replay["sameRequest"] >= 2  # failing 1234, a group stops early (failFast)
    code, text = _cli("compare", str(first), str(tmp_path / "b" / "run"))
    assert "plans differ, so their checks may too and outcomes are not compared" in " ".join(text.split())
