"""Several runs side by side (O-13): attach each run's metrics.duckdb read-only and read its summary."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from harness.metrics import METRICS_FILE, metrics_path
from protocols import InvalidInput

from ._repro import Fingerprint, Replay, TrialKey, fingerprints, replay


@dataclass(frozen=True)
class RunSummary:
    """One run: a label, where it came from, and its group_stage_summary rows."""

    label: str
    path: Path
    rows: list[dict[str, Any]]
    stage_order: list[str]
    group_order: list[str]
    cached: tuple[int, int] = (0, 0)
    """(responses served from the response cache, all calls)."""
    trials: dict[TrialKey, Fingerprint] = field(default_factory=dict)
    """Each trial's first request and answers, to tell a replay from a new sample (``_repro``)."""
    model: str | None = None
    plan_sha256: str | None = None



def _label(con: duckdb.DuckDBPyConnection, alias: str, db: Path) -> str:
    row = con.execute(f"SELECT max(label), max(model_agent) FROM {alias}.experiments").fetchone()
    name = db.parent.name if db.name == METRICS_FILE else db.stem
    label, model = row if row else (None, None)
    return label or (f"{name} ({model})" if model else name)


def expand_sweeps(runs: list[str | Path]) -> list[tuple[Path, str | None]]:
    """Run directories, a sweep directory standing for each of its models' runs (labelled by model)."""
    from harness.results import is_sweep, read_sweep

    out: list[tuple[Path, str | None]] = []
    sweeps = [Path(r) for r in runs if is_sweep(Path(r))]
    names = distinct_names(sweeps) if sweeps else []
    for run in runs:
        path = Path(run)
        if not is_sweep(path):
            out.append((path, None))
            continue
        for member in read_sweep(path).models:
            if member.status in ("not_run", "pending") and not (path / member.slug / METRICS_FILE).exists():
                continue
            label = member.model if len(sweeps) == 1 else f"{member.model} ({names[sweeps.index(path)]})"
            out.append((path / member.slug, label))
    return out


def _identity(con: duckdb.DuckDBPyConnection, alias: str) -> dict[str, str | None]:
    row = con.execute(f"SELECT max(model_agent), max(plan_sha256) FROM {alias}.experiments").fetchone()
    return {"model": row[0], "plan_sha256": row[1]} if row else {}


def _cached_calls(con: duckdb.DuckDBPyConnection, alias: str) -> tuple[int, int]:
    columns = {r[0] for r in con.execute(
        f"SELECT column_name FROM information_schema.columns WHERE table_catalog = '{alias}' "
        "AND table_name = 'llm_calls'").fetchall()}
    if "cached" not in columns:  # written before the response cache existed
        row = con.execute(f"SELECT 0, count(*) FROM {alias}.llm_calls").fetchone()
    else:
        row = con.execute(f"SELECT count(*) FILTER (WHERE cached), count(*) FROM {alias}.llm_calls").fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def load_runs(runs: list[str | Path]) -> list[RunSummary]:
    """Attach every run's database to one in-memory connection and read its group × stage summary.

    A sweep directory (``harness run --model M1 --model M2``) stands for each of its models' runs."""
    con = duckdb.connect()
    out = []
    try:
        for i, (run, label) in enumerate(expand_sweeps(runs)):
            db = metrics_path(run)
            alias = f"run{i}"
            try:
                con.execute(f"ATTACH '{str(db).replace(chr(39), chr(39) * 2)}' AS {alias} (READ_ONLY)")
                cursor = con.execute(f"SELECT * FROM {alias}.group_stage_summary ORDER BY group_id, stage_id")
            except duckdb.Error as exc:
                raise InvalidInput(f"{run}: not a readable metrics database ({exc})") from None
            names = [d[0] for d in cursor.description]
            rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
            # stages in the order their trial rows were written (the runner writes in plan order);
            # start times interleave when an ungated baseline starts a late stage early
            stages, groups = (
                [r[0] for r in con.execute(
                    f"SELECT {col} FROM {alias}.trials GROUP BY {col} ORDER BY min(rowid), {col}").fetchall()]
                for col in ("stage_id", "group_id")
            )
            out.append(RunSummary(label=label or _label(con, alias, db), path=db, rows=rows, stage_order=stages,
                                  group_order=groups, cached=_cached_calls(con, alias),
                                  trials=fingerprints(con, alias), **_identity(con, alias)))
    finally:
        con.close()
    return _distinct_labels(out)


def distinct_names(paths: list[Path]) -> list[str]:
    """The shortest trailing part of each path that tells it from the others (``x/sw`` and ``y/sw``)."""
    resolved = [p.resolve() for p in paths]
    depth = 1
    while True:
        names = ["/".join(p.parts[-depth:]) for p in resolved]
        if len(set(names)) == len(set(resolved)) or depth >= max(len(p.parts) for p in resolved):
            return names
        depth += 1


def _distinct_labels(runs: list[RunSummary]) -> list[RunSummary]:
    """Runs whose labels collide (two directories both named ``run``) are told apart by the shortest
    part of their folders' paths that differs."""
    labels = [r.label for r in runs]
    clashing = [i for i, r in enumerate(runs) if labels.count(r.label) > 1 and r.path.name == METRICS_FILE]
    names = distinct_names([runs[i].path.parent for i in clashing])
    out = list(runs)
    for i, name in zip(clashing, names, strict=True):
        run, folder = runs[i], runs[i].path.parent.name
        label = (name + run.label[len(folder):] if run.label.startswith(f"{folder} (")  # "<folder> (<model>)"
                 else f"{run.label} ({name})")
        out[i] = dataclasses.replace(run, label=label)
    return out


def replays(runs: list[RunSummary]) -> list[Replay]:
    """Each run against the first earlier run of the same agent model (two sweeps pair model by model),
    over the trials that sent the same first request; a directory listed twice is not compared with itself."""
    out = []
    for i, run in enumerate(runs):
        earlier = next((r for r in runs[:i] if r.model == run.model and r.path != run.path), None)
        if earlier is None:
            continue
        found = replay(earlier.label, earlier.trials, run.label, run.trials,
                       same_plan=earlier.plan_sha256 == run.plan_sha256)
        if found is not None:
            out.append(found)
    return out
