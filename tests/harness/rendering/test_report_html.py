"""report.html and report.md from a run directory (O-3, O-20, O-21, X-40 … X-52)."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from harness.rendering import render_all
from tests.harness.rendering.run_fixture import EVIL


class _Collect(HTMLParser):
    """The visible text in document order, and every element by id."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if a.get("href"):
            self.hrefs.append(str(a["href"]))
        if a.get("src"):
            self.srcs.append(str(a["src"]))
        if tag == "script":
            self.scripts.append(a)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Collect:
    p = _Collect()
    p.feed(html)
    return p


def test_o20_first_screen_names_failing_groups_finding_and_n(run_dir: Path) -> None:
    """O-20/X-40/X-41: the headline section says who failed, the finding with its limit, and that n=3
    cannot separate the groups, before any table."""
    render_all(run_dir)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    head = html[html.index('<section class="headline"'):html.index("</section>")]
    text = " ".join(_parse(head).text)
    assert "Failed: group A (simple, tool_continuation)" in text
    assert "group B" not in text and "group C" not in text
    assert "trailing assistant state block is continued" in text
    assert "Does not show:" in text
    assert "Not separable at this n" in text and "n=3" in text
    assert re.search(r"model kind\s+scripted .* status\s+completed .* ran to its end", text)
    budget = [[c.strip() for c in re.findall(r"<t[hd]>([^<]*)</t[hd]>", row)]
              for row in re.findall(r"<tr>(.*?)</tr>", head[head.index('class="budget"'):], re.S)]
    calls = budget[0].index("llmCalls")  # one column per budget: name, spent, limit
    assert [row[calls] for row in budget] == ["llmCalls", "18", "500"]
    assert html.index("headline") < html.index('id="gating"') < html.index('id="comparisons"') \
        < html.index('id="cost"') < html.index('id="repeats"') < html.index('id="caveats"') \
        < html.index('id="transcripts"')


def test_o20_failing_a_trial_shows_trailing_assistant_state_last(run_dir: Path) -> None:
    """O-20: a failing A trial's request ends with the derived state message, role assistant, badged."""
    render_all(run_dir)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    start = html.index('<details class="trial" id="trial-A_simple_0"')
    trial = html[start:html.index('<details class="trial"', start + 10)]
    assert "state: last message, role assistant" in trial
    msgs = re.findall(r'<div class="msg (\w+)"[^>]*>\s*<span class="label \w+">([^<]+)</span> #\d+ role <b>(\w+)</b>',
                      trial)
    assert msgs[-1] == ("state", "derived: state", "assistant")
    assert [m[0] for m in msgs[:-1]] == ["system", "raw", "raw", "raw"]
    b = html.index('<details class="trial" id="trial-B_simple_0"')
    assert "state: last message, role user" in html[b:html.index('<details class="trial"', b + 10)]


def test_o20_tool_calls_paired_and_failed_checks_linked(run_dir: Path) -> None:
    """O-20: a tool call shows its result; a failed check's evidence links to an element that exists."""
    render_all(run_dir)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    parsed = _parse(html)
    assert re.search(r"call <b>quote</b>.*?→ result: <pre>\{&#34;usd&#34;: 120\}</pre>", html, re.S)
    evidence = [h for h in parsed.hrefs if h.startswith("#snap-")]
    assert evidence, "failed checks must link to their snapshot"
    # message ids repeat across sessions: each trial's evidence links into that trial's own transcript
    assert '<a href="#msg-A_simple_1_m2">m2</a>' in html and '<a href="#msg-B_simple_1_m2">m2</a>' in html
    assert all(h[1:] in parsed.ids for h in parsed.hrefs if h.startswith("#"))


def test_o20_self_contained_escaped_and_only_the_inline_triage_script(run_dir: Path) -> None:
    """O-20: plots are data URIs, no external fetch, model text escaped (no URL outside escaped text);
    the one script is the report's own inline triage script (no src)."""
    render_all(run_dir)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    parsed = _parse(html)
    assert parsed.scripts == [{"id": "triage-script"}]
    script = html[html.index('<script id="triage-script">'):]
    assert "fetch(" not in script[:script.index("</script>")] and "alert(1)" not in script[:script.index("</script>")]
    assert len(parsed.srcs) == 4 and all(s.startswith("data:image/png;base64,") for s in parsed.srcs)
    assert EVIL not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    outside = html.replace("&lt;script&gt;alert(1)&lt;/script&gt; see https://evil.example/x", "")
    assert not re.search(r"https?://", outside)
    for name in ("pass_rate", "by_segment", "repeated_calls", "cached_tokens"):
        assert (run_dir / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_o21_markdown_carries_headline_tables_findings(run_dir: Path) -> None:
    render_all(run_dir)
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "**Failed:** group A (simple, tool_continuation)" in md
    assert "not separable at this n" in md and "n=3" in md
    assert "| A | control | unified@3 | failed 0/3 [0.00, 0.56]" in md
    assert "*What it does not show:*" in md
    assert "| A | 12 | 6 | 0 |" in md
    assert "<script>" not in md


def test_o3_harness_report_on_copy_reproduces_html_bytes(run_dir: Path, tmp_path: Path) -> None:
    """O-3: `harness report DIR` on a copied directory renders the same bytes, no model call."""
    render_all(run_dir)
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    for name in ("report.html", "report.md"):
        (copy / name).unlink()
    shutil.rmtree(copy / "plots")
    result = CliRunner().invoke(app, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    for name in ("report.html", "report.md", "plots/pass_rate.png", "plots/by_segment.png"):
        assert (copy / name).read_bytes() == (run_dir / name).read_bytes(), name


def test_o3_harness_report_bad_dir_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert "no report.json" in result.output
