"""O-20 in a real browser: Debian's headless Chromium opens report.html from disk with no console
message, no page error and no fetch beyond the file itself and its data: plots, and the transcript
viewer expands a failing A trial to show the trailing assistant state block (.ci/run installs
chromium; without it these tests skip). The triage bar filters the trials (failed only, group, stage,
failure mode) and searches the transcripts (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.rendering import render_all
from tests.harness.rendering.cdp import Browser, chromium_path
from tests.harness.rendering.run_fixture import build_run

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed (.ci/run installs it)")

NOISE = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Network.loadingFailed")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        for domain in ("Runtime", "Log", "Page", "Network"):
            b.send(f"{domain}.enable")
        yield b


def _open(browser: Browser, path: Path) -> list[dict[str, Any]]:
    """Load ``path`` and return what the page reported that a clean page does not report."""
    browser.events.clear()
    browser.send("Page.navigate", {"url": path.as_uri()})
    browser.wait_for("Page.loadEventFired")
    browser.evaluate("1")  # drains events sent before the load event
    problems = [e for e in browser.events if e["method"] in NOISE]
    problems += [e for e in browser.events if e["method"] == "Log.entryAdded"
                 and e["params"]["entry"]["level"] in ("error", "warning")]
    problems += [e for e in browser.events if e["method"] == "Network.requestWillBeSent"
                 and not e["params"]["request"]["url"].startswith((path.as_uri(), "data:"))]
    return problems


def test_o20_detector_catches_a_console_error_and_a_remote_fetch(browser: Browser, tmp_path: Path) -> None:
    """The collector is live: a page that logs an error and fetches a remote image is reported."""
    page = tmp_path / "noisy.html"
    page.write_text('<!DOCTYPE html><img src="https://evil.example/x.png"><script>console.error("boom")</script>',
                    encoding="utf-8")
    methods = {e["method"] for e in _open(browser, page)}
    assert {"Runtime.consoleAPICalled", "Network.requestWillBeSent"} <= methods


def test_o20_report_opens_clean_and_the_viewer_expands_a_failing_a_trial(browser: Browser, tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    render_all(run)
    assert _open(browser, run / "report.html") == []
    # one script, the report's own triage script; the EVIL caveat stays text
    assert browser.evaluate("[...document.querySelectorAll('script')].map(s => s.id)") == ["triage-script"]
    assert "alert(1)" not in browser.evaluate("document.getElementById('triage-script').textContent")
    trial = browser.evaluate("""[...document.querySelectorAll('details.trial')]
        .find(d => d.id.startsWith('trial-A_') && d.querySelector(':scope > summary .failed')).id""")
    badge = f"#{trial} details.snapshot .msg.state .badge.last"
    assert browser.evaluate(f"document.querySelector('#{trial}').open") is False
    assert browser.evaluate(f"document.querySelector('{badge}').checkVisibility()") is False

    browser.click(f"#{trial} > summary")
    assert browser.evaluate(f"document.querySelector('#{trial}').open") is True
    browser.click(f"#{trial} details.snapshot > summary")
    assert browser.evaluate(f"document.querySelector('{badge}').checkVisibility()") is True
    shown = browser.evaluate(f"""(() => {{ const b = document.querySelector('{badge}');
        b.scrollIntoView({{block: 'center'}}); const r = b.getBoundingClientRect();
        const msg = b.closest('.msg'); const sent = [...msg.parentElement.querySelectorAll(':scope > .msg')]
            .filter(m => m.classList.length > 1 && !m.classList.contains('failed'));  // not the response
        return [r.width > 0 && r.height > 0, b.textContent, msg === sent[sent.length - 1],
                msg.querySelector('b').textContent]; }})()""")
    # the badge is drawn, says the state block is the last message, and that message has the assistant role
    assert shown == [True, "last message", True, "assistant"]
    assert _console_free(browser)


def _console_free(browser: Browser) -> bool:
    return not [e for e in browser.events if e["method"] in NOISE]


def _shown(browser: Browser) -> list[list[str]]:
    return browser.evaluate("""[...document.querySelectorAll('details.trial')].filter(t => t.checkVisibility())
        .map(t => [t.dataset.group, t.dataset.status, t.dataset.mode])""")


def test_triage_failed_only_filter_and_transcript_search(browser: Browser, tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    render_all(run)
    assert _open(browser, run / "report.html") == []
    assert browser.evaluate("document.getElementById('triage').checkVisibility()") is True
    assert len(_shown(browser)) == 18  # 3 groups x 2 stages x 3 repeats

    browser.click("#f-failed")  # failed only: the six failing A trials, each with its failure mode
    assert _shown(browser) == [["A", "failed", "state_echo"]] * 6
    assert browser.evaluate("document.getElementById('f-count').textContent") == "6 of 18 trials shown"

    browser.click("#f-failed")  # off again; search the transcripts for text only passing answers hold
    browser.type_text("#f-text", "hall costs 120")
    assert sorted({g for g, _, _ in _shown(browser)}) == ["B", "C"] and len(_shown(browser)) == 12
    outlined = browser.evaluate("document.querySelectorAll('details.trial:not([hidden]) details.snapshot.hit').length")
    assert outlined == 12  # the request whose answer matched is outlined in every shown trial

    browser.evaluate("(() => { const s = document.getElementById('f-group'); s.value = 'C';"
                     " s.dispatchEvent(new Event('change')); })()")
    assert {g for g, _, _ in _shown(browser)} == {"C"} and len(_shown(browser)) == 6
    browser.type_text("#f-text", " and nothing else")  # no transcript holds the longer text
    assert _shown(browser) == []
    assert browser.evaluate("document.getElementById('f-count').textContent").startswith("0 of 18 trials shown")
    assert _console_free(browser)


def test_state_badge_is_red_only_in_failed_trials(browser: Browser, tmp_path: Path) -> None:
    """C's trailing user state is its design, not an error: its badge is neutral; A's failing one is red."""
    run = build_run(tmp_path / "run")
    render_all(run)
    _open(browser, run / "report.html")
    colours = browser.evaluate("""(() => { const out = {};
        for (const t of document.querySelectorAll('details.trial')) {
          const b = t.querySelector(':scope > summary .badge');
          out[t.dataset.status] = [...new Set([...(out[t.dataset.status] || []), getComputedStyle(b).backgroundColor])];
        } return out; })()""")
    assert colours["failed"] == ["rgb(199, 50, 47)"]
    assert colours["passed"] != colours["failed"] and "rgb(199, 50, 47)" not in colours["passed"]
