#!/usr/bin/env bash
# Install (first time) and run the test suite, lint and type check. Extra arguments go to pytest
# (e.g. ./test.sh tests/protocols -x; -n 0 runs in one process).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
.venv/bin/ruff check protocols harness tests
.venv/bin/mypy
.venv/bin/lint-imports --no-cache --no-logo   # the one-way layout (pyproject.toml [tool.importlinter], docs/design.md)
# -n auto: one pytest worker per core (xdist); the suite is CPU-bound and takes half the time on 2 cores.
# -rs: each skipped test is listed with its reason (the real-model test waits for LLAMA_API_BASE).
exec .venv/bin/python -m pytest -n auto -rs "$@"
