"""JUnit XML (issue 13): built with xml.etree, parseable whatever a model wrote into an answer."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from harness.rendering import junit_xml, xml_safe
from harness.results import Report

HOSTILE = "null\x00 bell\x07 esc\x1b[31m lone\ud800 </failure><![CDATA[ ]]> & \"quotes\" \ufffe 中文 ok"


def _report(trials: list[dict[str, Any]]) -> Report:
    stage = {"id": "simple", "status": "failed", "passRate": {"passes": 0, "n": 1, "value": 0.0,
                                                               "wilson95": [0.0, 0.79]}, "trials": trials}
    return Report.model_validate({
        "harnessVersion": "0", "createdAt": "2026-10-05T12:00:00Z", "experimentId": "e", "status": "completed",
        "plan": {"id": "p", "sha256": "0" * 64, "path": "p.json"},
        "model": {"agent": "scripted/prefill-continuer", "maintainer": "scripted/prefill-continuer",
                  "kind": "scripted"},
        "budget": {"limits": {}},
        "groups": [{"id": "A", "label": "A", "role": "control",
                    "protocol": {"id": "unified", "version": 3, "options": {}}, "stages": [stage]}]})


def test_hostile_model_text_still_gives_well_formed_xml() -> None:
    failed = {"id": "A/simple/1", "repeat": 1, "status": "failed", "failureMode": "wrong_answer",
              "failureDetail": f"turn 1: answered {HOSTILE}",
              "checks": [{"name": "answer_contains", "turn": 1, "result": "failed", "detail": f"got {HOSTILE}"}]}
    error = {"id": "A/simple/2", "repeat": 2, "status": "error", "error": f"infrastructure: {HOSTILE}"}
    skipped = {"id": "A/simple/3", "repeat": 3, "status": "skipped", "error": "stopped: budget_exhausted:usd"}
    root = ET.fromstring(junit_xml([("p", _report([failed, error, skipped]))]))
    cases = root.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == ["A/simple/1", "A/simple/2", "A/simple/3"]
    assert [(c.find("failure") is not None, c.find("error") is not None, c.find("skipped") is not None)
            for c in cases] == [(True, False, False), (False, True, False), (False, False, True)]
    text = str(cases[0].find("failure").text)  # type: ignore[union-attr]
    assert "null\\x00 bell\\x07 esc\\x1b[31m lone\\ud800 </failure><![CDATA[ ]]> & \"quotes\" \\ufffe 中文 ok" in text
    assert cases[1].find("error").get("type") == "infrastructure"  # type: ignore[union-attr]
    assert cases[2].find("skipped").get("message") == "stopped: budget_exhausted:usd"  # type: ignore[union-attr]
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("3", "1", "1", "1")


def test_xml_safe_keeps_what_xml_can_hold() -> None:
    assert xml_safe("tab\tline\nreturn\r中文 😀") == "tab\tline\nreturn\r中文 😀"
    assert xml_safe("\x00\x08\x0b\x7f") == "\\x00\\x08\\x0b\x7f"  # DEL is allowed in XML 1.0
