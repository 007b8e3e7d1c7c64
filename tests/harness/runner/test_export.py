"""``harness export RUN_DIR --format csv|parquet`` (issue 13): trials, model calls and checks of a run
(or of every model of a sweep, with a sweep_model column) as files, written by DuckDB from metrics.duckdb."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from harness.cli import app
from harness.results import read_report, read_sweep
from tests.harness.runner._mounts import read_only
from tests.harness.runner._run import query


def _export(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["export", *args])
    return result.exit_code, result.output


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_csv_and_parquet_hold_every_trial_call_and_check(fixed_sweep: tuple[Path, int, str], tmp_path: Path) -> None:
    run = tmp_path / "run"  # a copy of one model's ordinary run directory: the shared fixture stays as written
    shutil.copytree(fixed_sweep[0] / "scripted-prefill-continuer", run)
    code, output = _export(str(run))
    assert code == 0, output
    assert output.split() == [str(run / "export" / f"{n}.csv") for n in ("trials", "calls", "checks")]
    report = read_report(run / "report.json")
    trials = _rows(run / "export" / "trials.csv")
    want = {t.id: (t.status, t.failureMode) for g in report.groups for s in g.stages for t in s.trials}
    assert {r["trial_id"]: (r["status"], r["failure_mode"] or None) for r in trials} == want
    assert {r["failure_mode"] for r in trials if r["group_id"] == "A"} == {"state_echo"}
    calls = _rows(run / "export" / "calls.csv")
    assert len(calls) == report.budget.spent.llmCalls and {"tokens", "usd"} <= {c.split("_")[-1] for c in calls[0]}
    checks = _rows(run / "export" / "checks.csv")
    assert len(checks) == query(run, "SELECT count(*) FROM checks")[0][0] > 0
    assert any(c["result"] == "failed" and "7650" in c["detail"] for c in checks)

    code, output = _export(str(run), "--format", "parquet", "--out", str(tmp_path / "pq"))
    assert code == 0, output
    con = duckdb.connect()
    for name, rows in (("trials", trials), ("calls", calls), ("checks", checks)):
        got = con.execute(f"SELECT count(*) FROM read_parquet('{tmp_path / 'pq' / name}.parquet')").fetchall()
        assert got == [(len(rows),)], name
    con.close()


def test_a_sweep_exports_every_model_with_a_model_column(fixed_sweep: tuple[Path, int, str], tmp_path: Path) -> None:
    out, _, _ = fixed_sweep
    code, output = _export(str(out), "--out", str(tmp_path / "x"))
    assert code == 0, output
    trials = _rows(tmp_path / "x" / "trials.csv")
    assert list(trials[0])[0] == "sweep_model"
    sweep = read_sweep(out)
    for member in sweep.models:
        report = read_report(out / member.slug / "report.json")
        n = sum(len(s.trials) for g in report.groups for s in g.stages)
        assert sum(r["sweep_model"] == member.model for r in trials) == n
    assert not (out / "export").exists()  # --out was given: the sweep directory is untouched


def test_a_directory_without_metrics_exits_2_saying_what_export_needs(tmp_path: Path) -> None:
    code, output = _export(str(tmp_path))
    assert code == 2
    assert "is not a run directory: no metrics.duckdb" in " ".join(output.split())


def test_an_unwritable_export_folder_exits_2_naming_it(fixed_sweep: tuple[Path, int, str], tmp_path: Path) -> None:
    """A file in the way of --out, a read-only RUN_DIR (its default export/ cannot be made), a folder to
    make on a read-only mount and a read-only folder that exists: exit 2 naming the folder and why."""
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a folder\n", encoding="utf-8")
    run = fixed_sweep[0] / "scripted-oracle"
    for out in (in_the_way, in_the_way / "sub"):
        code, output = _export(str(run), "--out", str(out))
        text = " ".join(output.split())
        assert code == 2 and "Traceback" not in output, output
        assert f"cannot write to the export folder {out}: " in text and "choose a writable --out" in text
    assert not (run / "export").exists()
    source = tmp_path / "source"
    shutil.copytree(run, source / "run")
    (source / "export-here").mkdir()
    with read_only(source, tmp_path / "ro") as ro:
        for args, folder in (([], ro / "run" / "export"), (["--out", str(ro / "new")], ro / "new"),
                             (["--out", str(ro / "export-here")], ro / "export-here")):
            code, output = _export(str(ro / "run"), *args)
            text = " ".join(output.split())
            assert code == 2 and "Traceback" not in output, output
            assert f"cannot write to the export folder {folder}: " in text and "Read-only file system" in text
    assert not (source / "run" / "export").exists() and not list((source / "export-here").iterdir())
