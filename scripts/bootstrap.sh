#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its pinned dependencies.
# Sourced by run.sh and test.sh; safe to run again (pip skips what is installed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
