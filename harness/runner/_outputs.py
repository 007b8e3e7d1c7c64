"""Writing the run directory's derived outputs (O-1): report.json, metrics.duckdb and, when the
reports module is in the tree, report.html / report.md / plots.

report.json and metrics.duckdb are both derived from the same trial records, so their totals agree.
"""

from __future__ import annotations

import importlib.util
import json
import os
from typing import Any

from ._duckdb import write_duckdb
from ._report import build_report
from ._rows import table_rows


def write_outputs(request: Any, exp: Any, status: str, stop_reason: str | None,
                  preflight: list[dict[str, Any]]) -> dict[str, Any]:
    out = request.out_dir
    report = build_report(exp, request, status, stop_reason, preflight)
    tmp = out / "report.json.tmp"
    tmp.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, out / "report.json")
    write_duckdb(out / "metrics.duckdb", table_rows(exp.plan.id, exp.records))
    if importlib.util.find_spec("harness.reports") is not None:
        from harness import reports  # the reports engineer's renderer (HTML, Markdown, plots)

        render = getattr(reports, "render_all", None)
        if render is not None:
            render(out)
    return report
