"""The human-readable report of a run (O-3, O-20, O-21): report.html, report.md and plots/*.png (and JUnit XML for CI),
rendered from a run directory's report.json, metrics.duckdb and transcripts alone — no model call,
no clock: rendering the same directory twice gives the same bytes."""

from __future__ import annotations

from pathlib import Path

import harness

from . import _plots
from ._context import comparisons, costs, gating, headline
from ._data import ReportInputError, load_metrics, load_report
from ._design import design
from ._differences import differences
from ._evidence import evidence
from ._junit import junit_xml, write_junit, xml_safe
from ._render import render_html, render_markdown
from ._sweep import render_sweep
from ._transcripts import load_transcripts, trial_views
from ._workflow import gate, infrastructure, triage

PLOTS = frozenset({"pass_rate", "by_segment", "repeated_calls", "cached_tokens"})
"""Every plot a report can show."""

__all__ = ["ReportInputError", "junit_xml", "render_all", "render_sweep", "write_junit", "xml_safe"]


def render_all(run_dir: Path) -> list[Path]:
    """Write report.html, report.md and plots/*.png into ``run_dir``; return the paths written.

    Raises ``ReportInputError`` when the directory lacks a readable report.json or metrics.duckdb.
    """
    report = load_report(run_dir)
    metrics = load_metrics(run_dir)
    cost = costs(report, metrics)
    groups = cost["groups"]
    # a plot is drawn only where it has something to show; the report says so in words otherwise
    plots = {
        "pass_rate": _plots.pass_rates(report),
        "by_segment": _plots.by_segment(groups, cost["segTokens"], cost["segUsd"]),
    }
    if any(cost["repeats"][g]["repeated"] or cost["repeats"][g]["duplicate_signature"] for g in groups):
        plots["repeated_calls"] = _plots.repeated_calls(groups, cost["repeats"])
    if any(cost["totals"][g]["cached_input_tokens"] for g in groups):
        plots["cached_tokens"] = _plots.cached_tokens(groups, cost["totals"])
    trials = trial_views(report, load_transcripts(run_dir))
    context = {"h": headline(report), "g": gating(report), "comps": comparisons(report), "cost": cost,
               "caveats": report.get("caveats", []), "trials": trials,
               "wf": {"gate": gate(report), "infra": infrastructure(report), "triage": triage(trials)},
               "diffs": differences(report),
               "ev": evidence(report), "dz": design(report),
               "schema": report.get("schemaVersion"), "created": report.get("createdAt"),
               "version": report.get("harnessVersion", harness.__version__)}
    written = []
    (run_dir / "plots").mkdir(exist_ok=True)
    for stale in PLOTS.difference(plots):  # drawn by an earlier rendering of this directory
        (run_dir / "plots" / f"{stale}.png").unlink(missing_ok=True)
    for name, png in plots.items():
        path = run_dir / "plots" / f"{name}.png"
        path.write_bytes(png)
        written.append(path)
    for name, text in (("report.html", render_html(context, plots)), ("report.md", render_markdown(context, plots))):
        path = run_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
