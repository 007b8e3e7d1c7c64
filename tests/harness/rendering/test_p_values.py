"""One formatter for every printed p (issue: "p = 0.00" for 0.002): two significant digits, "< 0.001"
below that, in report.md / report.html, the headline, sweep.html and scripts/probe_numbers.py."""

from __future__ import annotations

import json
import re
import runpy
import sys
from pathlib import Path

import pytest

from harness.rendering import render_all
from harness.rendering._context import comparisons, headline
from harness.rendering._render import _ENV

ROOT = Path(__file__).parents[3]


def _comparison(p: float) -> dict[str, object]:
    return {"stage": "simple", "group": "B", "control": "A", "groupPasses": 9, "groupN": 10, "controlPasses": 1,
            "controlN": 10, "groupWilson95": [0.6, 1.0], "controlWilson95": [0.0, 0.4], "pValue": p,
            "separable": p < 0.05, "statement": "x"}


@pytest.mark.parametrize(("p", "cell", "sentence"), [
    (0.002, "0.0020", "(Fisher p = 0.0020)"), (0.00001, "< 0.001", "(Fisher p < 0.001)"),
    (0.0496, "0.0496", "(Fisher p = 0.0496)")])
def test_the_comparison_table_and_headline_print_p_with_two_significant_digits(p: float, cell: str,
                                                                                sentence: str) -> None:
    report = {"comparisons": [_comparison(p)]}  # no test named: a report written before, Fisher's
    assert comparisons(report)[0]["p"] == cell and comparisons(report)[0]["test"] == "Fisher"
    assert f"B vs A in simple {sentence}" in headline(report)["separation"]
    named = {"comparisons": [{**_comparison(p), "test": "boschloo"}], "design": {"test": "boschloo"}}
    assert f"B vs A in simple {sentence.replace('Fisher', 'Boschloo')}" in headline(named)["separation"]


def test_report_md_and_html_print_the_formatted_p(run_dir: Path) -> None:
    path = run_dir / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    report["comparisons"][0]["pValue"], report["comparisons"][0]["separable"] = 0.002, True
    path.write_text(json.dumps(report), encoding="utf-8")
    render_all(run_dir)
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "| 0.0020 |" in md and "<td>0.0020</td>" in html
    assert "| 0.002 |" not in md and "<td>0.002</td>" not in html


def test_the_sweep_page_filter_is_the_same_formatter() -> None:
    assert _ENV.from_string("{{ p | pvalue }}").render(p=0.002) == "0.0020"
    template = (ROOT / "harness/rendering/templates/sweep.html.j2").read_text(encoding="utf-8")
    assert "e.pValue | pvalue" in template


def test_no_module_or_template_prints_p_with_fixed_decimals() -> None:
    """A guard: p is printed only through harness.analysis.format_p / p_text (or the pvalue filter)."""
    fixed = re.compile(r"\{(p|p_value|c\.pValue|c\['pValue'\]|e\.pValue):\.\d[fg]\}"
                       r"|%\.\d[fg]\"\s*\|\s*format\([^)]*pValue")
    sources = [*ROOT.joinpath("harness").rglob("*.py"), *ROOT.joinpath("harness").rglob("*.j2"),
               *ROOT.joinpath("scripts").rglob("*.py")]
    offenders = [f"{s.relative_to(ROOT)}:{i}" for s in sources
                 for i, line in enumerate(s.read_text(encoding="utf-8").splitlines(), 1) if fixed.search(line)]
    assert offenders == []


def test_probe_numbers_prints_p_below_0_001_as_such(run_dir: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = run_dir / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    for group in report["groups"]:  # A 0/10 vs B 10/10 in simple: p = 1.1e-05
        for stage in group["stages"]:
            if stage["id"] == "simple" and group["id"] in ("A", "B"):
                stage["passRate"].update(passes=10 if group["id"] == "B" else 0, n=10)
    path.write_text(json.dumps(report), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["probe_numbers.py", str(run_dir)])
    runpy.run_path(str(ROOT / "scripts/probe_numbers.py"), run_name="__main__")
    out = capsys.readouterr().out
    # Boschloo p, adjusted p in the report's family, the verdict, Fisher's p alone
    assert "| simple | B vs A | 10/10 vs 0/10 | < 0.001 | < 0.001 | yes | < 0.001 |" in out
    assert "| simple | C vs A | 3/3 vs 0/10 | 0.0018 | 0.0018 | yes | 0.0035 |" in out
    assert "| tool_continuation | B vs A | 3/3 vs 0/3 | 0.031 | 0.11 | no | 0.10 |" in out
    assert "The 6 comparisons of the report's family: p-values adjusted for 6 comparisons" in out


def test_the_headline_says_when_separable_counts_are_one_sample_repeated() -> None:
    """English variant, prefill-continuer: B 4/4 vs A 0/4 (p = 0.029) from identical answers at temperature 0."""
    groups = [{"id": g, "stages": [{"id": "simple", "distinctAnswers": 1, "passRate": {"n": 4}}]} for g in "AB"]
    comparison = {**_comparison(0.029), "groupPasses": 4, "groupN": 4, "controlPasses": 0, "controlN": 4}
    report = {"comparisons": [comparison], "groups": groups, "model": {"sampling": {"temperature": 0}}}
    separation = headline(report)["separation"]
    assert separation.startswith("Separable at this n: B vs A in simple (Fisher p = 0.029). But the repeats behind it "
                                 "are "
                                 "identical answers (B/simple 1 distinct of 4, A/simple 1 distinct of 4): one sample "
                                 "repeated, not independent draws")  # a report written before: separable on counts
    sampled = {**report, "model": {"sampling": {"temperature": 0.7}}}  # independent draws if the server sampled
    assert "identical answers" not in headline(sampled)["separation"]
