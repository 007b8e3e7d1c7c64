#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its pinned dependencies. Sourced by run.sh
# and test.sh. The install runs only when it is not up to date: when .venv is new, or when
# pyproject.toml changed since the last install (.venv/.bootstrap.stamp holds its sha256, written
# after a successful install). It runs under a lock (flock on .venv/.bootstrap.lock), so ./run.sh and
# ./test.sh started together in one clone never install into one .venv at once: the second waits,
# then finds the install up to date. (Without flock, e.g. on macOS, there is no lock.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
mkdir -p .venv
(
  if command -v flock >/dev/null 2>&1; then
    flock 9
  fi
  want=$("$PY" -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
  if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
    rm -f .venv/.bootstrap.stamp
  fi
  if [ "$(cat .venv/.bootstrap.stamp 2>/dev/null || true)" != "$want" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' \
      2> >(grep -v "is ignored: it is neither a file nor a directory" >&2 9>&-)
    echo "$want" > .venv/.bootstrap.stamp
  fi
) 9>.venv/.bootstrap.lock
