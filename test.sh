#!/usr/bin/env bash
# Install (first time) and run the test suite, lint and type check. Extra arguments go to pytest
# (e.g. ./test.sh tests/protocols -x; -n 0 runs in one process).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
.venv/bin/ruff check protocols harness tests
.venv/bin/lint-imports --no-cache --no-logo   # the one-way layout (pyproject.toml [tool.importlinter], docs/design.md)
# mypy checks beside pytest, at a lower priority: with no cache (a fresh clone) it works for half a
# minute on one core, most of it in litellm's and openai's sources, and pytest leaves a core idle now
# and then (tests waiting on a subprocess or a server). Its verdict is printed and counted at the end.
mypy_log=$(mktemp)
nice -n 10 .venv/bin/mypy > "$mypy_log" 2>&1 &
mypy_pid=$!
trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$mypy_log"' EXIT
# -n auto: one pytest worker per core (xdist); the suite is CPU-bound and takes half the time on 2 cores.
# --dist loadscope: a module's tests go to one worker, so a module-scoped fixture (a whole run) runs
# once; --no-loadscope-reorder keeps the collection order, in which tests/conftest.py puts the
# modules of the longest tests first (else the one-test modules, the longest, would go last).
# -rs: each skipped test is listed with its reason (the real-model test waits for LLAMA_API_BASE).
pytest_status=0
.venv/bin/python -m pytest -n auto --dist loadscope --no-loadscope-reorder -rs "$@" || pytest_status=$?
mypy_status=0
wait "$mypy_pid" || mypy_status=$?
if [ "$mypy_status" = 0 ]; then
  echo "mypy: $(tail -n 1 "$mypy_log")"
else
  cat "$mypy_log"
  [ "$pytest_status" != 0 ] || pytest_status=1
fi
exit "$pytest_status"
