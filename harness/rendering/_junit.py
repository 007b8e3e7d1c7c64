"""JUnit XML of a run or a sweep (``harness run --junit FILE``), for CI systems.

One ``<testsuite>`` per run (a sweep: one per model), one ``<testcase>`` per trial (every attempt:
an infrastructure retry is a trial of its own), ``classname`` = ``group.stage``, ``name`` = the
trial id. A failed trial is a ``<failure>`` whose type is its failure mode and whose text gives the
failure detail and every failed check; an ``error`` trial is an ``<error>``; a skipped one
``<skipped>``. The gate's expectations are ``<properties>`` of the suite: the exit code (4) is the
gate, the test cases are the evidence. Built with ``xml.etree``; text a model wrote is made
XML-safe (characters XML 1.0 cannot carry are written as ``\\xNN`` / ``\\uNNNN``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.results._models import Report, TrialReport

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: object) -> str:
    """Text XML 1.0 can hold: control characters, lone surrogates and U+FFFE/U+FFFF escaped."""
    def esc(m: re.Match[str]) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_XML.sub(esc, str(text))


def _seconds(trial: TrialReport) -> str:
    if trial.startedAt is None or trial.finishedAt is None:
        return "0"
    return f"{max(0.0, (trial.finishedAt - trial.startedAt).total_seconds()):.3f}"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: xml_safe(v) for k, v in attrs.items()})
    if text:
        element.text = xml_safe(text)
    return element


def _testcase(suite: ET.Element, group: str, stage: str, trial: TrialReport, label: str) -> None:
    case = _sub(suite, "testcase", classname=f"{group}.{stage}", name=trial.id + label, time=_seconds(trial))
    if trial.status == "failed":
        failed = [c for c in trial.checks if c.result == "failed"]
        mode = trial.failureMode or "failed"
        first = f"{failed[0].name}: {failed[0].detail}" if failed else (trial.error or "")
        lines = [f"failure mode {mode}: {trial.failureDetail}" if trial.failureDetail else f"failure mode {mode}"]
        lines += [f"check {c.name}" + (f" (turn {c.turn})" if c.turn else "") + f" failed: {c.detail}"
                  for c in failed]
        _sub(case, "failure", "\n".join(lines), type=mode, message=f"{mode}: {first}")
    elif trial.status == "error":
        reason = trial.error or "error"
        _sub(case, "error", reason, type=reason.split(":", 1)[0], message=reason)
    elif trial.status == "skipped":
        _sub(case, "skipped", message=trial.error or "skipped")
    if trial.transcript:
        _sub(case, "system-out", f"transcript: {trial.transcript}")


def _suite(root: ET.Element, name: str, report: Report, label: str) -> None:
    cases = [(g.id, s.id, t) for g in report.groups for s in g.stages for t in s.trials]
    count = {st: sum(t.status == st for _, _, t in cases) for st in ("failed", "error", "skipped")}
    suite = _sub(root, "testsuite", name=name, tests=str(len(cases)), failures=str(count["failed"]),
                 errors=str(count["error"]), skipped=str(count["skipped"]),
                 timestamp=report.createdAt.isoformat(timespec="seconds"),
                 time=f"{report.budget.spent.wallSeconds:.3f}")
    props = _sub(suite, "properties")
    _sub(props, "property", name="plan", value=f"{report.plan.id} sha256 {report.plan.sha256}")
    _sub(props, "property", name="model", value=report.model.agent)
    _sub(props, "property", name="status", value=report.status + (f" ({report.stopReason})"
                                                                    if report.stopReason else ""))
    for e in report.expectations:
        _sub(props, "property", name=f"expect {e.text}", value=("met" if e.met else "unmet") + f": was {e.actual}")
    for group, stage, trial in cases:
        _testcase(suite, group, stage, trial, label)


def junit_xml(suites: list[tuple[str, Report]]) -> bytes:
    """``suites``: (suite name, report) pairs; a sweep passes one per model (test names then carry it)."""
    root = ET.Element("testsuites", {"name": "placement harness"})
    for name, report in suites:
        _suite(root, name, report, f" [{report.model.agent}]" if len(suites) > 1 else "")
    totals = {k: sum(int(s.get(k, "0")) for s in root) for k in ("tests", "failures", "errors", "skipped")}
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def write_junit(path: Path, suites: list[tuple[str, Report]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(junit_xml(suites))
    return path
