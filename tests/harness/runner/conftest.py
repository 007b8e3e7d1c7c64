"""Fixtures shared by the runner tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import plan_data

SWEPT = ("scripted/oracle", "scripted/prefill-continuer")


@pytest.fixture(scope="session")
def fixed_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """Issue 13, must show 1: the fixed plan swept over the oracle and prefill-continuer, from the CLI.

    Concurrency 16 starts every trial of a stage at once, so fail-fast skips nothing and each
    group's n is the plan's repeats. A sweep shares one plan's budget across its models; since every
    conversation folds and compresses (issue 11) the oracle alone spends ~514,000 of the fixed plan's
    600,000 tokens, so the two models get twice its run-level caps (a rescore allows other caps).
    Returns (sweep directory, exit code, output)."""
    base = tmp_path_factory.mktemp("sweep")
    data = plan_data()
    for cap in ("maxTotalTokens", "maxLlmCalls"):
        data["budget"][cap] *= len(SWEPT)
    plan = base / "experiment-plan.json"
    plan.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = base / "D"
    result = CliRunner().invoke(app, ["run", str(plan), "--model", SWEPT[0], "--model", SWEPT[1],
                                      "--concurrency", "16", "--out", str(out)])
    return out, result.exit_code, result.output
