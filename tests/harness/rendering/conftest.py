"""The run directory fixture of the report tests (built by run_fixture.build_run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.rendering.run_fixture import build_run


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return build_run(tmp_path / "run")
