"""scripts/_heartbeat.sh: a long silent step (pip, a model download, a compiler build) runs with its
output in a log while the console gets a line every HEARTBEAT_EVERY_S seconds with the time so far and
the last progress marker of the log (a build's "[ 3/10]" or "[ 42%]"); the step's exit status is
kept. The interval is shrunk to 1 s here, for a fake step of about 4 s."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

HEARTBEAT = Path(__file__).parents[2] / "scripts" / "_heartbeat.sh"
FAKE_BUILD = """for i in 1 2 3 4; do
  echo "[ $i/10] Building CXX object ggml$i.o"; echo "c++ -O3 -c ggml$i.c"; sleep 1
done
exit "${FAKE_STATUS:-0}"
"""


def _run(tmp_path: Path, *, status: int = 0, marker: str | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "build.sh").write_text(FAKE_BUILD, encoding="utf-8")
    script = (f'set -euo pipefail; source "{HEARTBEAT}"; heartbeat_run "llama_server.sh: building llama-server" '
              f'"{tmp_path}/build.log" bash "{tmp_path}/build.sh" '
              '|| { echo "status $?" >&2; exit 0; }; echo "status 0" >&2')
    env = {"PATH": "/usr/bin:/bin", "HEARTBEAT_EVERY_S": "1", "FAKE_STATUS": str(status),
           **({"HEARTBEAT_MARKER": marker} if marker else {})}
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)


def test_the_console_gets_elapsed_time_and_the_build_step_while_the_output_goes_to_the_log(tmp_path: Path) -> None:
    done = _run(tmp_path)
    beats = re.findall(r"^llama_server\.sh: building llama-server: (\d+) s, at \[ (\d+)/10\]$", done.stderr,
                       re.MULTILINE)
    assert len(beats) >= 2, done.stderr
    seconds, steps = [int(s) for s, _ in beats], [int(k) for _, k in beats]
    assert seconds == sorted(seconds) and seconds[-1] >= 2 and steps == sorted(steps) and steps[-1] >= 2, beats
    assert done.stderr.rstrip().endswith("status 0") and done.stdout == ""  # the step's output: only in the log
    log = (tmp_path / "build.log").read_text(encoding="utf-8")
    assert log.count("Building CXX object") == 4 and log.count("c++ -O3") == 4


def test_a_failing_step_keeps_its_status_and_a_log_without_markers_gives_elapsed_only(tmp_path: Path) -> None:
    done = _run(tmp_path, status=3, marker="never-printed")
    assert done.stderr.rstrip().endswith("status 3"), done.stderr
    beats = re.findall(r"^llama_server\.sh: building llama-server: \d+ s$", done.stderr, re.MULTILINE)
    assert len(beats) >= 2, done.stderr


def test_elapsed_reads_in_minutes_past_a_minute() -> None:
    out = subprocess.run(["bash", "-c", f'source "{HEARTBEAT}"; heartbeat_elapsed 45; heartbeat_elapsed 125'],
                         capture_output=True, text=True, check=True).stdout
    assert out == "45 s\n2 min 05 s\n"
