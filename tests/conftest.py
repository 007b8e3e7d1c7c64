"""Test order for the xdist workers (./test.sh runs ``pytest -n auto --dist loadscope
--no-loadscope-reorder``, a module at a time in collection order): the modules of the tests that take
tens of seconds each (cold processes, servers, whole runs over HTTP) are handed out first, so they
run beside the short ones instead of leaving one worker alone with the last of them. Order only:
every test runs and proves what it did."""

from __future__ import annotations

import pytest

LONG_FIRST = (
    "tests/scripts/test_local_probe_progress.py",
    "tests/docs/test_doc_commands.py",
    "tests/harness/cli/test_cold_start.py",
    "tests/harness/runner/test_crash_resume_Q10.py",
    "tests/harness/server/test_serve_cli.py",
    "tests/harness/runner/test_http_faults.py",
    "tests/harness/runner/test_local_model.py",
    "tests/harness/rendering/test_notebook.py",
)
"""Modules, longest first; the rest keep their collection order."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order
