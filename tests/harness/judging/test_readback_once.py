"""The read-back checks (fold_readback, compression_readback) probe each fold once per judged trial through
the dispatcher, and each gets the result it gets reading every fold back on its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.engine import MaintenanceRecord
from harness.judging import _checks
from harness.judging._checks import TrialView, trial_check
from harness.plan import StageSpec
from harness.runner._trial import run_trial
from tests.helpers.engine import SCENARIO, make_engine


def test_each_fold_is_read_back_once_and_each_check_gets_what_reading_alone_gives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    stage = StageSpec.model_validate({"id": "s", "repeats": 1, "turns": [{"input": t} for t in SCENARIO],
                                      "trialChecks": [{"name": "fold_readback"}, {"name": "compression_readback"}]})
    engine = make_engine("A")
    record = asyncio.run(run_trial(engine, "A", stage, 1))
    assert record.sessionId is not None
    folds = sorted(k.removeprefix("fold/") for k in engine.store.kv_prefix(record.sessionId, "fold/"))
    assert len(folds) >= 2
    compressed = MaintenanceRecord(step=1, window_id="main", status="compressed", compressed_folds=(folds[0],))
    runs = [*record.runs[:-1], record.runs[-1].model_copy(update={"maintenance": [compressed]})]
    probes: list[str] = []
    real = _checks.read_fold

    def counting(view: TrialView, fold_id: str) -> Any:
        probes.append(fold_id)
        return real(view, fold_id)

    monkeypatch.setattr(_checks, "read_fold", counting)

    def view() -> TrialView:
        return TrialView(protocol=engine.protocol, store=engine.store, session_id=record.sessionId or "", runs=runs,
                         snapshots=[])

    alone = [trial_check(check, view()) for check in stage.effective_trial_checks]  # each on a view of its own
    assert sorted(probes) == sorted([*folds, folds[0]])
    probes.clear()
    shared = view()
    together = [trial_check(check, shared) for check in stage.effective_trial_checks]
    assert sorted(probes) == folds  # the compressed fold was read back once, for both checks
    assert together == alone and {c.result for c in together} == {"passed"}
    assert shared.readbacks == {fold: None for fold in folds}
