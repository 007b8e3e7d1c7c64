"""``harness rescore`` of a run recorded by an older harness (data/qwen-fixed-plan, 2026-12-03): its facts
stay as recorded, every statement about them is today's (the difference panel's sentences, the preflight,
price and unattributed-calls caveats), the report written before the family of comparisons existed still
opens, renders and rescores, and ``--family`` / ``--family-method`` are said in the first caveat."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.plan import parse_plan
from harness.results import read_report
from harness.results._differences import DESIGN, NO_DESIGN, findings_role, group_differences, restate, wire_beyond
from harness.results._panel import GroupDifference
from harness.results._preflight import preflight_caveats
from harness.wire import WireDifference, wire_summary

RECORDED = Path(__file__).parent / "data" / "qwen-fixed-plan"
TODAY = f"Design: v1 is {NO_DESIGN['controlGroup']}, not a single-variable comparison with A."
OLD = "Design: v1 is the control, not a single-variable comparison with A."


def _run(tmp: Path, edit: Any = None) -> Path:
    """A copy of the recording, its report.json edited by ``edit`` (the report as JSON, changed in place)."""
    run = tmp / "run"
    shutil.copytree(RECORDED, run)
    if edit is not None:
        data = json.loads((run / "report.json").read_text(encoding="utf-8"))
        edit(data)
        (run / "report.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return run


def _rescore(run: Path, *options: str) -> tuple[dict[str, Any], str]:
    out = run / "rescored" / f"r{len(list(run.glob('rescored/*')))}"
    result = CliRunner().invoke(app, ["rescore", str(run), "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return (json.loads((out / "report.json").read_text(encoding="utf-8")),
            (out / "report.md").read_text(encoding="utf-8"))


def _older_words(report: dict[str, Any]) -> None:
    """The recording as an older harness would have worded it (its facts unchanged)."""
    for d in report["groupDifferences"]:
        d["summary"] = d["summary"].replace(f"is {NO_DESIGN['controlGroup']}", "is the control")
        for w in d["wire"]:
            w["summary"] = "on openai, an older sentence."
    report["caveats"] = [c.replace("preflight A (unified@3 on openai/qwen): ", "preflight A says: ")
                         .replace("price of openai/qwen: ", "price of openai/qwen: in older words; ")
                         for c in report["caveats"]]
    report["budget"]["spent"]["llmCalls"] += 3  # three calls a kill ended before their trial was recorded
    report["stopDetail"] = "what the stop meant, as said when it happened"


@pytest.fixture(scope="module")
def rescored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], str]]:
    base = tmp_path_factory.mktemp("words")
    return {"today": _rescore(_run(base / "today")), "older": _rescore(_run(base / "older", _older_words))}


def _facts(d: dict[str, Any]) -> dict[str, Any]:
    """A panel entry's compared requests: all but the classifications and sentences derived from them."""
    d = GroupDifference.model_validate(d).model_dump(mode="json")  # every field, as report.json writes it
    kept = {k: v for k, v in d.items() if k not in ("differsIn", "expected", "summary", "wire")}
    return kept | {"wire": [{k: v for k, v in w.items() if k not in ("differsIn", "summary")} for w in d["wire"]]}


def test_the_difference_panel_speaks_todays_words(rescored: dict[str, tuple[dict[str, Any], str]]) -> None:
    """A run recorded with "v1 is the control" is rescored with today's design line, wire sentences and
    verdicts, identical to a rescore of the recording as it was; the compared requests stay as recorded."""
    recorded = json.loads((RECORDED / "report.json").read_text(encoding="utf-8"))["groupDifferences"]
    (today, _), (older, older_md) = rescored["today"], rescored["older"]
    assert [d["summary"] for d in older["groupDifferences"]] == [d["summary"] for d in today["groupDifferences"]]
    assert older["groupDifferences"] == today["groupDifferences"]
    v1 = next(d for d in older["groupDifferences"] if d["group"] == "v1")
    assert v1["summary"].endswith(TODAY) and TODAY in older_md
    assert OLD not in older_md and "older sentence" not in older_md and "older sentence" not in json.dumps(older)
    roles = {"B": "positionGroup", "C": "roleGroup", "v2": "sentinelGroup"}
    for d, then in zip(older["groupDifferences"], recorded, strict=True):
        assert _facts(d) == _facts(then)  # what was sent: as recorded
        assert d["differsIn"] == then["differsIn"] and d["expected"] == then["expected"]
        if d["group"] in roles:
            assert f"Design: {d['group']} is {DESIGN[roles[d['group']]][1]}." in d["summary"]
        for w in d["wire"]:  # today's sentence from the recorded views (no treatments were recorded then)
            view = WireDifference.model_validate(w)
            assert view.controlTreatment is None and not view.notes
            assert w["summary"] == wire_summary(view.provider, d["group"], d["control"], view.control, view.group)
            assert f"On the wire, {w['summary']}" in d["summary"]


def test_caveats_about_recorded_facts_are_derived_again(rescored: dict[str, tuple[dict[str, Any], str]]) -> None:
    """Preflight, price and unattributed-calls caveats come from the recorded entries, table and spending in
    today's words; the preflight entries and the stop's detail stay as recorded."""
    recorded = read_report(RECORDED / "report.json")
    (today, _), (older, _) = rescored["today"], rescored["older"]
    entries = [p.model_dump(mode="json") for p in recorded.preflight]
    assert older["preflight"] == today["preflight"] == entries
    for caveat in preflight_caveats(entries):
        assert caveat in older["caveats"] and caveat in today["caveats"]
    assert not any(c.startswith("preflight A says") or "in older words" in c for c in older["caveats"])
    price = "price of openai/qwen: price unknown (local model): its USD cost is not counted and maxUsd does not " \
            "apply to it"
    assert price in older["caveats"] and price in today["caveats"]
    assert [c for c in older["caveats"] if "belong to no recorded trial" in c] == [
        "3 model call(s) (0 tokens) counted as spent belong to no recorded trial: attempts that a kill or crash "
        "ended before they finished. They count against the budget; their trials ran again on resume, and pass "
        "rates and per-group costs rest on recorded trials only."]
    assert not any("belong to no recorded trial" in c for c in today["caveats"])
    assert older["stopDetail"] == "what the stop meant, as said when it happened" and today["stopDetail"] is None


def test_a_report_written_before_the_family_opens_renders_and_rescores(tmp_path: Path) -> None:
    """The recording predates the family (no adjustedP, no family on its comparisons): it loads, ``harness
    report`` renders it, and a rescore states it with the plan's default family, saying so."""
    raw = json.loads((RECORDED / "report.json").read_text(encoding="utf-8"))
    assert raw["comparisons"] and not any("adjustedP" in c or "family" in c for c in raw["comparisons"])
    assert "family" not in json.loads((RECORDED / "plan.json").read_text(encoding="utf-8"))["analysis"]
    assert read_report(RECORDED / "report.json").comparisons
    run = _run(tmp_path)
    report, _ = _rescore(run)
    assert report["caveats"][0].endswith(
        "Every comparison the findings rules can claim is held at α = 0.05 together (family findings, exact "
        "closed test: familyMethod exact), the plan's default: the report re-scored was written before the "
        "family existed and judged each comparison at α on its own.")
    report, _ = _rescore(run, "--family", "none")
    assert report["caveats"][0].endswith("Each comparison is judged at α = 0.05 on its own, not adjusted for "
                                         "multiple comparisons: --family none.")
    summary = json.loads((run / "rescored" / "r1" / "rescore.json").read_text(encoding="utf-8"))
    assert summary["analysis"] == {"test": "fisher", "family": "none", "familyMethod": "exact"}
    report, _ = _rescore(run, "--family-method", "holm")
    assert report["caveats"][0].endswith("(family findings, Holm: familyMethod holm), as asked.")
    # the recording keeps no metrics.duckdb: the rescore's holds the same trials' metrics, and renders it
    shutil.copy2(run / "rescored" / "r0" / "metrics.duckdb", run / "metrics.duckdb")
    result = CliRunner().invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    md = (run / "report.md").read_text(encoding="utf-8")
    assert "| simple | v1 | A | 0/2 |" in md and "not separable at this n" in md and "v1 is the sentinel control" in md


def test_a_plan_that_sets_the_family_is_followed_and_named(tmp_path: Path) -> None:
    run = _run(tmp_path)
    plan = json.loads((RECORDED / "plan.json").read_text(encoding="utf-8"))
    plan["analysis"]["family"] = "none"
    path = tmp_path / "none.json"
    path.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    report, _ = _rescore(run, "--plan", str(path))
    assert report["caveats"][0].endswith("not adjusted for multiple comparisons: the plan's analysis.family is none.")
    report, _ = _rescore(run, "--plan", str(path), "--family", "findings")
    assert report["caveats"][0].endswith("(family findings, exact closed test: familyMethod exact), as asked.")


@pytest.mark.parametrize(("option", "value", "expected"), [("--family", "all", "findings, none"),
                                                           ("--family-method", "bonferroni", "exact, holm")])
def test_an_unknown_family_or_method_is_refused_by_name(tmp_path: Path, option: str, value: str,
                                                        expected: str) -> None:
    result = CliRunner().invoke(app, ["rescore", str(_run(tmp_path)), option, value])
    assert result.exit_code == 2
    assert f"{option} {value!r}: expected one of {expected}" in result.output
    assert not (tmp_path / "run" / "rescored").exists()


def test_a_run_without_a_store_restates_the_panel_it_carries() -> None:
    """The report builder's panel for a rescore (no store): the recorded one, restated, so the wire confounds
    its findings name come from today's reading of the recorded wire, as a live run's do."""
    recorded = read_report(RECORDED / "report.json")
    plan = parse_plan(json.loads((RECORDED / "plan.json").read_text(encoding="utf-8")), "plan.json")[0]
    wiped = [d.model_copy(update={"summary": "", "differsIn": [], "expected": None, "wire": [
        w.model_copy(update={"summary": "", "differsIn": []}) for w in d.wire]}) for d in recorded.groupDifferences]
    panel = group_differences(SimpleNamespace(plan=plan, store=None, recorded_panel=wiped))  # type: ignore[arg-type]
    assert panel == restate(recorded.groupDifferences, plan.findings)
    beyond = {d.group: [a for w in d.wire for a in wire_beyond(findings_role(plan.findings, d.group), w)]
              for d in panel}
    assert beyond == {"B": ["prefill"], "C": ["prefill"], "v2": [], "v1": []}
    assert group_differences(SimpleNamespace(plan=plan, store=None)) == []  # type: ignore[arg-type]
