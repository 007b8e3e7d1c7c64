#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its pinned dependencies. Sourced by run.sh,
# test.sh and scripts/local_probe.sh. The install runs only when it is not up to date: when .venv is
# new, or when pyproject.toml changed since the last install (.venv/.bootstrap.stamp holds its
# sha256, written after a successful install); up to date, it prints nothing. It runs under a lock
# (flock on .venv/.bootstrap.lock), so ./run.sh and ./test.sh started together in one clone never
# install into one .venv at once: the second says it waits, then finds the install up to date.
# (Without flock, e.g. on macOS, there is no lock.)
#
# An install prints a line per phase on stderr (creating .venv, installing, done with the seconds it
# took) and, while pip works (silent for minutes), a line every HEARTBEAT_EVERY_S seconds (default
# 20) with the time so far and the package pip last reached; pip's own output goes to
# .venv/bootstrap.log, whose last lines are shown when the install fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/_heartbeat.sh
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
mkdir -p .venv
(
  if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
    echo "bootstrap: another install into .venv is running in this clone; waiting for it" >&2
    flock 9
  fi
  want=$("$PY" -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
  started=$SECONDS
  if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv with $("$PY" --version 2>&1)" >&2
    "$PY" -m venv .venv
    rm -f .venv/.bootstrap.stamp
  fi
  if [ "$(cat .venv/.bootstrap.stamp 2>/dev/null || true)" != "$want" ]; then
    echo "bootstrap: installing the pinned dependencies into .venv (a few minutes the first time; pip's output: .venv/bootstrap.log)" >&2
    : > .venv/bootstrap.log
    if ! HEARTBEAT_MARKER='(Collecting [^ ]+|Installing collected packages|Successfully installed)' \
        heartbeat_run "bootstrap: installing" .venv/bootstrap.log \
        .venv/bin/python -m pip install --disable-pip-version-check -e '.[dev]'; then
      echo "bootstrap: pip install failed after $(heartbeat_elapsed $(( SECONDS - started ))); the end of .venv/bootstrap.log:" >&2
      grep -v "is ignored: it is neither a file nor a directory" .venv/bootstrap.log | tail -n 20 >&2 || true
      exit 1
    fi
    echo "$want" > .venv/.bootstrap.stamp
    echo "bootstrap: done in $(( SECONDS - started )) s" >&2
  fi
) 9>.venv/.bootstrap.lock
