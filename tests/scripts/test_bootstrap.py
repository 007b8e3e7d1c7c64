"""scripts/bootstrap.sh (sourced by ./run.sh and ./test.sh): installs only when the install is not up to
date (a new .venv, or a pyproject.toml changed since the last successful install), and under a lock,
so ./run.sh and ./test.sh started together in one clone never run ``pip install -e`` into one .venv at
once (before: both did, and failed).

The script runs for real in a copy of the repository's layout; only Python is a stand-in: ``-m venv``
makes a fake venv whose ``python -m pip install`` records the call (and, when told, waits on a FIFO
so the test controls when the first install ends). No sleeps: the second bootstrap is seen waiting
on the lock in /proc/locks."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "bootstrap.sh"
FAKE_PYTHON = f"""#!/usr/bin/env bash
if [ "$1" = -m ] && [ "$2" = venv ]; then
  echo venv >> "$LOG"
  mkdir -p "$3/bin" && cp "$FAKE_VENV_PYTHON" "$3/bin/python" && exit 0
fi
exec {sys.executable} "$@"
"""
FAKE_VENV_PYTHON = """#!/usr/bin/env bash
echo "install $*" >> "$LOG"
echo "Collecting fake-package==1.0"
sleep "${INSTALL_SECONDS:-0}"
if [ -n "${GATE:-}" ]; then echo started > "$GATE.started"; read -r _ < "$GATE"; fi
[ -z "${FAIL_INSTALL:-}" ]
"""

pytestmark = pytest.mark.skipif(shutil.which("flock") is None or not Path("/proc/locks").exists(),
                                reason="needs flock(1) and /proc/locks (Linux)")


def _layout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "scripts" / "bootstrap.sh")
    shutil.copy(SCRIPT.with_name("_heartbeat.sh"), repo / "scripts" / "_heartbeat.sh")
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    for name, text in (("python", FAKE_PYTHON), ("venv-python", FAKE_VENV_PYTHON)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        (tmp_path / name).chmod(0o755)
    env = {**os.environ, "PYTHON": str(tmp_path / "python"), "FAKE_VENV_PYTHON": str(tmp_path / "venv-python"),
           "LOG": str(tmp_path / "log")}
    return repo, env


def _bootstrap(repo: Path, env: dict[str, str], **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", str(repo / "scripts" / "bootstrap.sh")], env={**env, **extra}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(*processes: subprocess.Popen[str]) -> None:
    """End what a failed test left behind (a fake install waiting on its FIFO), by process group."""
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _done(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = process.communicate(timeout=120)
    return process.returncode, out


def _log(env: dict[str, str]) -> list[str]:
    path = Path(env["LOG"])
    return [line.split()[0] for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _phases(out: str) -> list[str]:
    """The phase lines of a bootstrap's output, each cut to its fixed words."""
    phases = ("creating .venv with", "installing the pinned dependencies", "done in", "installing: ")
    return [p for line in out.splitlines() for p in phases if line.startswith(f"bootstrap: {p}")]


def test_installs_when_missing_or_changed_and_skips_when_up_to_date(tmp_path: Path) -> None:
    repo, env = _layout(tmp_path)
    status, out = _done(_bootstrap(repo, env))  # a clean clone (.ci/run deletes .venv first)
    assert status == 0 and _log(env) == ["venv", "install"]
    assert _phases(out) == ["creating .venv with", "installing the pinned dependencies", "done in"], out
    assert _done(_bootstrap(repo, env)) == (0, "")  # up to date: no second install, and silent
    assert _log(env) == ["venv", "install"]
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write('version = "2"\n')
    status, out = _done(_bootstrap(repo, env, FAIL_INSTALL="1"))  # a failed install...
    assert status != 0 and "pip install failed after" in out and "Collecting fake-package==1.0" in out, out
    assert _done(_bootstrap(repo, env))[0] == 0  # ...is not marked done: it runs again
    assert _done(_bootstrap(repo, env))[0] == 0
    assert _log(env) == ["venv", "install", "install", "install"]
    (repo / ".venv" / "bin" / "python").unlink()  # a broken .venv is made again
    assert _done(_bootstrap(repo, env))[0] == 0
    assert _log(env) == ["venv", "install", "install", "install", "venv", "install"]


def test_a_second_bootstrap_waits_for_the_first_then_finds_it_up_to_date(tmp_path: Path) -> None:
    repo, env = _layout(tmp_path)
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    os.mkfifo(f"{gate}.started")
    first = _bootstrap(repo, env, GATE=str(gate))
    second = None
    try:
        assert Path(f"{gate}.started").read_text(encoding="utf-8") == "started\n"  # the first is installing
        second = _bootstrap(repo, env)  # ./test.sh started while ./run.sh installs
        inode = (repo / ".venv" / ".bootstrap.lock").stat().st_ino
        while not any(line.split()[1] == "->" and f":{inode} " in line
                      for line in Path("/proc/locks").read_text(encoding="utf-8").splitlines()):
            try:  # not a sleep: returns as soon as the second ends, which it must not do before the first
                second.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
            pytest.fail(f"the second bootstrap did not wait for the first: {_log(env)}")
        gate.write_text("go\n", encoding="utf-8")  # the first install ends
        assert _done(first)[0] == 0
        assert _done(second) == (0, "bootstrap: another install into .venv is running in this clone; waiting for it\n")
        assert _log(env) == ["venv", "install"]  # one install: the second found it up to date
    finally:
        _stop(first, *([second] if second else []))


def test_a_slow_install_prints_a_heartbeat_with_the_package_pip_reached(tmp_path: Path) -> None:
    """pip prints nothing for minutes; the bootstrap says it is still installing, how long it has taken
    and which package pip last reached (here every second, HEARTBEAT_EVERY_S=1, for a 3-second pip)."""
    repo, env = _layout(tmp_path)
    status, out = _done(_bootstrap(repo, env, INSTALL_SECONDS="3", HEARTBEAT_EVERY_S="1"))
    assert status == 0, out
    beats = re.findall(r"^bootstrap: installing: (\d+) s, at Collecting fake-package==1.0$", out, re.MULTILINE)
    assert len(beats) >= 2 and beats == sorted(beats), out
    assert _phases(out)[-1] == "done in" and (repo / ".venv" / "bootstrap.log").read_text().startswith("Collecting")
