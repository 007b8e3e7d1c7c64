"""End to end: the real runner with the scripted prefill-continuer writes a run directory whose
report.html shows the failing A trial's trailing assistant state block as the last message (O-20)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

PLAN = Path(__file__).resolve().parents[3] / "plans/unified-mapping-ab-20261005/experiment-plan.json"


def test_o20_prefill_continuer_run_shows_failing_a_with_trailing_assistant_state(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(PLAN), "--model", "scripted/prefill-continuer", "--out", str(out),
                                      "--group", "A", "--stage", "simple"])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text(encoding="utf-8")
    head = html[:html.index("</section>")]
    assert "Failed: group A (simple)" in head
    start = html.index('<details class="trial" id="trial-A_simple_1" data-status="failed" data-group="A" '
                       'data-stage="simple" data-mode="state_echo">')
    end = html.find('<details class="trial"', start + 10)
    trial = html[start:end if end > 0 else len(html)]
    assert '<span class="failed">failed</span>' in trial[:300]
    first_request = trial[:trial.index("</details>")]
    assert "state: last message, role assistant" in first_request
    labels = re.findall(r'<span class="label (\w+)">[^<]+</span> #\d+ role <b>(\w+)</b>', first_request)
    assert labels[-1] == ("state", "assistant")
    assert ("header", labels[1][1]) == labels[1]
    # the failed answer check links to the request that proves it
    link = re.search(r'<tr class="failed"><td>answer_contains</td>.*?<a href="#(snap-[^"]+)"', trial, re.S)
    assert link and f'id="{link.group(1)}"' in html
