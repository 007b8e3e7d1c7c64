"""Fixtures shared across the harness tests: the fixed plan swept over two scripted models (run once:
the tests that use it are one xdist group, so one worker runs the sweep and all of them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.harness.runner._run import FIXED_PLAN

SWEPT = ("scripted/oracle", "scripted/prefill-continuer")
SWEEP_CAPS = ["--max-total-tokens", "1200000", "--max-llm-calls", "800"]
"""The README's two-model sweep raises the fixed plan's caps to a pool for two models."""


@pytest.fixture(scope="session")
def fixed_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """Issue 13, must show 1: the fixed plan swept over the oracle and prefill-continuer, from the CLI,
    as the README documents it (``SWEEP_CAPS``).

    Concurrency 16 starts every trial of a stage at once, so fail-fast skips nothing and each
    group's n is the plan's repeats. A sweep shares one budget across its models; since every
    conversation folds and compresses (issue 11) the oracle alone spends ~510,000 of the fixed plan's
    600,000 tokens, so the sweep raises the shared caps to twice the plan's on the command line.
    Returns (sweep directory, exit code, output)."""
    out = tmp_path_factory.mktemp("sweep") / "D"
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), "--model", SWEPT[0], "--model", SWEPT[1], *SWEEP_CAPS,
                                      "--concurrency", "16", "--out", str(out)])
    return out, result.exit_code, result.output


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "fixed_sweep" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("fixed_sweep"))
