#!/usr/bin/env bash
# Install (first time) and run the test suite, lint and type check. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
.venv/bin/ruff check protocols harness tests
.venv/bin/mypy
exec .venv/bin/python -m pytest "$@"
