"""Writing the run directory's derived outputs (O-1): report.json (``harness.results``),
metrics.duckdb (``harness.metrics``) and report.html / report.md / plots
(``harness.rendering.render_all``).

report.json and metrics.duckdb are both derived from the same trial records, so their totals agree.
"""

from __future__ import annotations

from typing import Any

from harness.metrics import METRICS_FILE, ExperimentRow, MetricsWriter
from harness.results import Report, write_report
from harness.results._assemble import build_report, model_kind
from harness.results._rows import comparison_rows, trial_columns

from . import _stops

RENDER_INTERRUPTED = "interrupted (Ctrl-C) while rendering"
"""``write_outputs``' render error when a Ctrl-C stopped the rendering: report.json and
metrics.duckdb are written, ``harness report DIR`` renders report.html / .md."""


def write_outputs(request: Any, exp: Any, experiment_id: str, status: str, stop_reason: str | None,
                  preflight: list[dict[str, Any]], report: Report | None = None) -> tuple[Report, str | None]:
    """Returns the report and, when the HTML/Markdown rendering failed, why (report.json and
    metrics.duckdb are written first and stay valid; ``harness report DIR`` can render later).
    ``report``: one already built (a rescore adjusts it); by default it is built from ``exp``."""
    out = request.out_dir
    interrupts = _stops.interrupts
    report = report or build_report(exp, request, experiment_id, status, stop_reason, preflight)
    write_report(report, out / "report.json")
    s = exp.settings
    experiment = ExperimentRow(
        experiment_id=experiment_id, plan_id=exp.plan.id, plan_sha256=request.plan_sha256,
        model_agent=s.agent_model, model_maintainer=s.maintainer_model,
        model_kind=model_kind(s.agent_model),
        status=status, stop_reason=stop_reason, created_at=report.createdAt, test=exp.plan.analysis.test)
    path = out / METRICS_FILE
    path.unlink(missing_ok=True)  # derived from trials.jsonl: rewritten whole on every (resumed) finish
    with MetricsWriter.create(path, experiment_id) as writer:  # one transaction
        writer.write("experiments", [experiment])
        for table, columns in trial_columns(experiment_id, exp.records).items():
            writer.write_columns(table, columns)
        writer.write("comparisons", comparison_rows(report))
    if request.render:
        from harness.rendering import render_all as render  # lazy: rendering imports matplotlib

        if _stops.interrupts > interrupts and _stops.lone():  # a Ctrl-C while report.json was written
            return report, RENDER_INTERRUPTED
        try:
            with _stops.rendering():
                render(out)
        except KeyboardInterrupt:
            if interrupts:  # a second Ctrl-C (the first stopped the run): abort at once
                raise
            return report, RENDER_INTERRUPTED
        except Exception as exc:  # the renderer's defect must not lose the run's results
            return report, f"{type(exc).__name__}: {exc}"
    return report, None
