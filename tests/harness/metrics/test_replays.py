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
    assert "6 trials sent byte-identical first requests" in text and "identical in 6 (A 3/3, v1 3/3)" in text
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
