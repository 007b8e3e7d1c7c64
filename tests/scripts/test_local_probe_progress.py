"""scripts/local_probe.sh end to end on a cold cache, with stand-ins for the slow parts: it prints a
line at every phase and while it waits (the llama-server build's heartbeat with its step counter, the
"11–15 minutes" notice on the console, not only in the log), takes the load average right before
`harness run`, and prints the numbers. The stand-ins: `cmake` prints "[ i/4] Building …" lines for
4 s and "builds" a llama-server that is `harness serve-scripted` (OpenAI-compatible, /health); the
model file is a placeholder already in the cache (no download). HEARTBEAT_EVERY_S=1 shrinks the
interval; the run is a 1-repeat smoke run of the probe plan."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
FAKE_CMAKE = """#!/usr/bin/env bash
if [ "$1" = --build ]; then
  for i in 1 2 3 4; do echo "[ $i/4] Building CXX object tools/server/part$i.o"; sleep 1; done
  mkdir -p "$2/bin" && cp "$FAKE_SERVER" "$2/bin/llama-server"
else
  echo "-- Configuring done"
fi
"""
FAKE_SERVER = f"""#!/usr/bin/env bash
[ "$1" = --version ] && {{ echo "version: stand-in"; exit 0; }}
while [ $# -gt 0 ]; do [ "$1" = --port ] && port=$2; shift; done
exec "{ROOT}/.venv/bin/harness" serve-scripted --port "$port" --model oracle
"""

pytestmark = pytest.mark.skipif(not Path("/proc/loadavg").exists() or not (ROOT / ".venv/bin/harness").exists(),
                                reason="needs Linux (/proc/loadavg) and the project's .venv")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cache(tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    (cache / "models").mkdir(parents=True)
    (cache / "models" / "qwen2.5-coder-0.5b-instruct-q4.gguf").write_bytes(b"placeholder")
    source = cache / "src" / "llama_cpp_python-0.3.36" / "vendor" / "llama.cpp"
    source.mkdir(parents=True)
    (source / "CMakeLists.txt").write_text("# stand-in\n", encoding="utf-8")
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, text in (("cmake", FAKE_CMAKE), ("c++", "#!/bin/sh\n"), ("llama-server", FAKE_SERVER)):
        (tools / name).write_text(text, encoding="utf-8")
        (tools / name).chmod(0o755)
    return cache


def test_local_probe_on_a_cold_cache_prints_every_phase_and_a_heartbeat_while_it_builds(tmp_path: Path) -> None:
    cache, out = _cache(tmp_path), tmp_path / "out"
    tools = tmp_path / "tools"
    env = {**os.environ, "PLACEMENT_HARNESS_CACHE": str(cache), "HEARTBEAT_EVERY_S": "1",
           "FAKE_SERVER": str(tools / "llama-server"), "PATH": f"{tools}:{os.environ['PATH']}"}
    process = subprocess.Popen(["bash", str(ROOT / "scripts" / "local_probe.sh"), "--repeats", "1",
                                "--port", str(_free_port()), "--out", str(out)], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: list[tuple[float, str]] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic(), line.rstrip("\n")))
        assert process.wait(timeout=240) == 0, "\n".join(text for _, text in lines)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait()
    text = "\n".join(t for _, t in lines)
    order = ["local_probe.sh: preparing llama-server", "llama_server.sh: building llama-server: 4–15 minutes",
             "llama_server.sh: built llama-server", "local_probe.sh: starting llama-server",
             "local_probe.sh: server ready", "] run started:", "] run finished:", "## Local placement probe"]
    positions = [text.find(marker) for marker in order]
    assert -1 not in positions and positions == sorted(positions), (positions, text)
    beats = re.findall(r"^llama_server\.sh: building llama-server: \d+ s, at \[ (\d)/4\]$", text, re.MULTILINE)
    assert len(beats) >= 2, text  # the build's step counter on the console while it builds
    assert (cache / "build.log").read_text(encoding="utf-8").count("Building CXX object") == 4
    numbers = (out / "numbers.md").read_text(encoding="utf-8")
    assert re.search(r"load average right before `harness run` [\d.]+ [\d.]+ [\d.]+, right after", numbers), numbers
    gaps = [b - a for (a, _), (b, _) in zip(lines, lines[1:], strict=False)]
    assert max(gaps) < 30, max(gaps)  # a line at least every 30 s (the heartbeat's interval here is 1 s)
