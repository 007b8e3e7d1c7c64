"""``harness serve-scripted`` in the foreground (X-64, Q-22): prints its loopback URL, serves the
scripted oracle, stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

HARNESS = Path(sys.executable).with_name("harness")


def test_x64_serve_scripted_foreground_prints_url_and_stops_on_sigterm() -> None:
    proc = subprocess.Popen(
        [str(HARNESS), "serve-scripted", "--port", "0", "--model", "oracle"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
        question = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
        body = {"model": "scripted/oracle", "messages": [{"role": "user", "content": question}]}
        reply = httpx.post(f"{url}/chat/completions", json=body, timeout=10).json()
        assert reply["choices"][0]["message"]["role"] == "assistant"
        # issue 11: input the oracle cannot read is refused as the client's set-up problem, not a 500
        body["messages"] = [{"role": "user", "content": "hello"}]
        refused = httpx.post(f"{url}/chat/completions", json=body, timeout=10)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "unsupported_input"
        assert "scripted/oracle cannot read its input 'hello'" in refused.json()["error"]["message"]
        assert httpx.get(f"{url}/stats", timeout=5).json()["requests"] == 2
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped" in err
