"""``harness power --looks`` for K comparisons against one control (X-41): the design calibrated for them
together, and the chance that all cross at one look (the path ``--comparisons K`` takes with ``--looks``)."""

from __future__ import annotations

import json

import pytest

from harness.cli._power import _sequential
from harness.stats import against_one_control, calibrated, operating


def test_two_comparisons_against_one_control_are_calibrated_together(capsys: pytest.CaptureFixture[str]) -> None:
    looks = [4, 8, 12, 16, 20]
    _sequential(0.8, 0.4, 0.05, "boschloo", looks, "obrien-fleming", True, comparisons=2)
    data = json.loads(capsys.readouterr().out)
    design = calibrated(tuple(looks), 0.05, "obrien-fleming", "boschloo", against_one_control(2))
    assert data["comparisons"] == 2 and data["calibration"] == "exact" and data["thresholds"] == design.thresholds
    assert data["size"] == design.size <= 0.05
    assert (data["power"], data["expectedRepeats"]) == pytest.approx(operating(design, looks, 0.8, 0.4))
    assert round(data["power"], 2) == 0.49  # both must cross at one look: below one comparison's 0.73
    _sequential(0.8, 0.4, 0.05, "boschloo", looks, "obrien-fleming", False, comparisons=2)
    text = " ".join(capsys.readouterr().out.split())
    assert "2 comparisons against one control calibrated together" in text
    assert "exact size of the 2 comparisons together 0.0492" in text
