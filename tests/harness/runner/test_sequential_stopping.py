"""Sequential stopping (X-12, X-41, O-2): the fixed plan sampled at 20 repeats of ``simple`` with looks at
4, 8, 12, 16 and 20 (O'Brien–Fleming, B:A and C:A) stops at look 2 where the difference is complete, and
runs to the last look where there is none; a resumed run re-derives its looks from the recorded trials."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import p_value
from harness.plan import parse_plan
from harness.results import TrialRecord
from harness.runner import RunOutcome
from harness.runner._overrides import OverrideError, OverrideSpec, apply_overrides
from harness.stats import calibrated, structure
from tests.harness.runner._run import outcomes, plan_data, run_plan

LOOKS = [4, 8, 12, 16, 20]
UNIFIED = ("A", "B", "C", "v2", "v1")


def sequential_plan() -> dict[str, Any]:
    data = plan_data()
    data["models"]["sampling"] = {"temperature": 0.7, "seed": 1}
    simple = next(s for s in data["stages"] if s["id"] == "simple")
    simple.update(repeats=20, failFast=False, sequential={"looks": LOOKS, "spending": "obrien-fleming",
                                                          "comparisons": [["B", "A"], ["C", "A"]]})
    return data


def report_json(outcome: RunOutcome) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((outcome.run_dir / "report.json").read_text(encoding="utf-8"))
    return data


def trials(report: dict[str, Any], stage: str) -> dict[str, list[dict[str, Any]]]:
    return {g["id"]: s["trials"] for g in report["groups"] for s in g["stages"] if s["id"] == stage}


def test_exact_math_stops_at_look_2_not_look_1() -> None:
    """Calibrated exactly (Boschloo) for B:A and C:A together: at n = 4 a complete difference (4/4 vs 0/4) is
    p = 0.0078, the smallest p there, which look 1 may not include (its threshold is half of it); at n = 8 it is
    p = 0.000031, below look 2's 0.0014, so a complete difference stops the stage at 8 repeats per group."""
    design = calibrated(tuple(LOOKS), 0.05, "obrien-fleming", "boschloo", structure([("B", "A"), ("C", "A")]))
    assert p_value(4, 4, 0, 4) == pytest.approx(2 / 256, rel=1e-6) and not p_value(4, 4, 0, 4) < design.thresholds[0]
    assert design.thresholds[0] == pytest.approx(p_value(4, 4, 0, 4) / 2, rel=1e-12)
    assert p_value(8, 8, 0, 8) == pytest.approx(2 / 4**8, rel=1e-6) and p_value(8, 8, 0, 8) < design.thresholds[1]
    assert design.thresholds[1] == pytest.approx(0.00137, rel=1e-2)
    assert design.size <= 0.05 and len(design.comparisons) == 2 and design.exact


@pytest.fixture(scope="module")
def prefill(tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    return run_plan(tmp_path_factory.mktemp("seq") / "run", "scripted/prefill-continuer", sequential_plan())


def test_prefill_continuer_stops_simple_at_8_and_b_c_go_on(prefill: RunOutcome) -> None:
    report = report_json(prefill)
    simple = trials(report, "simple")
    assert {g: len(ts) for g, ts in simple.items()} == {g: 8 for g in UNIFIED}  # not 20, and none skipped
    assert {t["status"] for g in ("B", "C", "v1") for t in simple[g]} == {"passed"}
    assert {t["status"] for g in ("A", "v2") for t in simple[g]} == {"failed"}
    got = outcomes(prefill)
    assert {g: got[g]["simple"] for g in UNIFIED} == {"A": "failed", "B": "passed", "C": "passed", "v2": "failed",
                                                     "v1": "passed"}
    assert got["B"]["tool_continuation"] == got["C"]["tool_continuation"] == "passed"  # gated on by the 8 trials
    assert got["A"]["tool_continuation"] == "not_reached"
    assert prefill.status == "completed" and prefill.stop_reason is None


def test_report_states_the_design_every_look_and_the_stop(prefill: RunOutcome) -> None:
    (seq,) = report_json(prefill)["sequential"]
    assert seq["stage"] == "simple" and seq["outcome"] == "stopped" and seq["stoppedAt"] == 2 and seq["ranTo"] == 8
    design = seq["design"]
    assert design["looks"] == LOOKS and design["spending"] == "obrien-fleming" and design["alpha"] == 0.05
    assert design["comparisons"] == [["B", "A"], ["C", "A"]]
    exact = calibrated(tuple(LOOKS), 0.05, "obrien-fleming", "boschloo", structure([("B", "A"), ("C", "A")]))
    assert design["together"] == 2 and design["calibration"] == "exact"
    assert design["test"] == "boschloo" and design["boundaries"] == exact.thresholds
    assert design["typeOneError"] == exact.cumulative and 0.04 <= design["size"] <= 0.05
    assert all(e <= s for e, s in zip(design["typeOneError"], design["spent"], strict=True))
    first, second = seq["looks"]
    assert first["n"] == {g: 4 for g in UNIFIED} and not first["crossed"]
    assert [c["pValue"] for c in first["comparisons"]] == pytest.approx([0.0078, 0.0078], abs=1e-4)
    assert second["n"] == {g: 8 for g in UNIFIED} and second["crossed"]
    assert all(c["crossed"] and c["pValue"] < second["boundary"] for c in second["comparisons"])


def test_findings_quote_the_stopped_test_with_its_boundary(prefill: RunOutcome) -> None:
    report = report_json(prefill)
    (stop,) = [f for f in report["findings"] if f["rule"].startswith("sequential")]
    assert stop["rule"] == "sequential-stopped" and stop["shown"] is True
    assert "stopped at look 2 (n = 8 per group)" in stop["statement"]
    assert "B vs A 8/8 vs 0/8, Boschloo p = 0.000031 < threshold 0.0014" in stop["statement"]
    assert ("O'Brien–Fleming spending of α = 0.05, Boschloo's test, exact size of the 2 comparisons together "
            "0.0492)") in stop["statement"]
    assert "at most the design's exact size of the 2 comparisons together 0.0492" in stop["doesNotShow"]
    assert report["findings"][0]["rule"].startswith("placement-v3/")  # the placement reading stays first
    assert report["design"]["alpha"] == 0.05 and report["design"]["comparisons"]


def test_oracle_never_crosses_and_runs_to_the_last_look(tmp_path: Path) -> None:
    outcome = run_plan(tmp_path / "run", "scripted/oracle", sequential_plan(), stages=["simple"])
    report = report_json(outcome)
    assert {g: len(ts) for g, ts in trials(report, "simple").items()} == {g: 20 for g in UNIFIED}
    (seq,) = report["sequential"]
    assert seq["outcome"] == "fixed" and seq["stoppedAt"] is None and seq["ranTo"] == 20
    assert [lk["repeats"] for lk in seq["looks"]] == LOOKS and not any(lk["crossed"] for lk in seq["looks"])
    assert "ran as a fixed design to the last look (n = 20 per group)" in seq["statement"]
    assert {outcomes(outcome)[g]["simple"] for g in UNIFIED} == {"passed"}


def test_a_resumed_run_keeps_the_looks_it_ran_and_stops_where_the_trials_say(tmp_path: Path) -> None:
    out, seen = tmp_path / "run", []

    def interrupt_in_look_2(_event: str, record: TrialRecord) -> None:
        seen.append(record.id)
        if len(seen) == 23:  # look 1 (5 groups × 4) done, look 2 under way
            os.kill(os.getpid(), signal.SIGINT)

    first = run_plan(out, "scripted/prefill-continuer", sequential_plan(), stages=["simple"], concurrency=2,
                     on_trial=interrupt_in_look_2)
    assert first.stop_reason == "interrupted"
    (partial,) = report_json(first)["sequential"]
    assert partial["outcome"] == "incomplete" and [lk["look"] for lk in partial["looks"]] == [1]
    ran = {r.id: r.sessionId for r in first.experiment.records if r.finished}
    assert all(f"{g}/simple/{n}" in ran for g in UNIFIED for n in range(1, 5))

    second = run_plan(out, "scripted/prefill-continuer", sequential_plan(), stages=["simple"], resume=True)
    report = report_json(second)
    sessions = {t["id"]: t["sessionId"] for ts in trials(report, "simple").values() for t in ts}
    assert all(sessions[tid] == session for tid, session in ran.items())  # not run again
    assert {g: len(ts) for g, ts in trials(report, "simple").items()} == {g: 8 for g in UNIFIED}
    assert report["sequential"][0]["stoppedAt"] == 2 and second.status == "completed"


def test_repeats_override_on_a_sequential_stage_takes_only_the_last_look() -> None:
    plan, _ = parse_plan(sequential_plan())
    with pytest.raises(OverrideError, match=r"--repeats simple=12: simple is a sequential stage .* last look, 20"):
        apply_overrides(plan, OverrideSpec(repeats={"simple": 12}))
    same, overrides = apply_overrides(plan, OverrideSpec(repeats={"simple": 20}))
    assert same.stage("simple").repeats == 20 and len(overrides) == 1
