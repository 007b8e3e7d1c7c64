"""sweep.html and sweep.md (``harness run PLAN --model M1 --model M2``): the model × group × stage
table and the findings across models, rendered from sweep.json alone (no model call, no clock)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.results import read_sweep

from ._render import render_named


def _interval(pair: Any) -> str:
    return "—" if not pair else f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def _number(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{value:,}"


def _cell(c: dict[str, Any]) -> dict[str, Any]:
    usd = c.get("usd")
    return {"status": c["status"], "passes": c["passes"], "n": c["n"], "wilson": _interval(c.get("wilson95")),
            "modes": ", ".join(f"{k} {v}" for k, v in (c.get("failureModes") or {}).items()),
            "distinct": c.get("distinctAnswers"), "tokens": f"{c['inputTokens'] + c['outputTokens']:,}",
            "usd": "unknown" if usd is None else f"{usd:.4f}", "calls": c["llmCalls"],
            "cached": c.get("cachedResponses") or 0}


def sweep_context(directory: Path) -> dict[str, Any]:
    sweep = read_sweep(directory).model_dump(mode="json")
    models = [m["model"] for m in sweep["models"]]
    cells = {(c["model"], c["group"], c["stage"]): c for c in sweep["table"]}
    rows = []
    for group in sweep["groups"]:
        for stage in sweep["stages"]:
            if not any((m, group, stage) in cells for m in models):
                continue
            rows.append({"group": group, "stage": stage,
                         "cells": [_cell(cells[(m, group, stage)]) if (m, group, stage) in cells else None
                                   for m in models]})
    runs = []
    for m in sweep["models"]:
        report = directory / m["slug"] / "report.html"
        spent = m["spent"]
        runs.append({**m, "link": f"{m['slug']}/report.html" if report.exists() else None,
                     "tokens": f"{spent['inputTokens'] + spent['outputTokens']:,}",
                     "usd": "unknown" if spent["usd"] is None else f"{spent['usd']:.4f}"})
    spent, limits = sweep["budget"]["spent"], sweep["budget"]["limits"]
    spent = {**spent, "totalTokens": spent["inputTokens"] + spent["outputTokens"]}
    budget = [{"name": name, "spent": _number(spent.get(key)), "limit": _number(limits.get(cap))}
              for name, key, cap in (("USD", "usd", "maxUsd"), ("model calls", "llmCalls", "maxLlmCalls"),
                                     ("input tokens", "inputTokens", "maxInputTokens"),
                                     ("output tokens", "outputTokens", "maxOutputTokens"),
                                     ("total tokens", "totalTokens", "maxTotalTokens"),
                                     ("wall seconds", "wallSeconds", "maxWallSeconds"))]
    if spent.get("cachedResponses"):
        budget.append({"name": "cached responses (not spent)", "spent": _number(spent["cachedResponses"]),
                       "limit": "—"})
    return {"s": sweep, "models": models, "rows": rows, "runs": runs, "budget": budget, "gate": _gate(sweep)}


def _gate(sweep: dict[str, Any]) -> dict[str, Any]:
    """Each model's expectations (every model must meet each one) and the overrides all models ran with."""
    rows = [{"model": m["model"], "text": f"{e['group']}:{e['stage']}={e['expected']}", "actual": e["actual"],
             "met": e["met"]} for m in sweep["models"] for e in m.get("expectations") or []]
    spelled = [f"--{k} {v:g}" if isinstance(v, float) else f"--{k} {v}"
               for k, v in (sweep.get("overrides") or {}).items() if k != "repeats"]
    spelled += [f"--repeats {stage}={n}" for stage, n in ((sweep.get("overrides") or {}).get("repeats") or {}).items()]
    return {"rows": rows, "unmet": sum(not r["met"] for r in rows),
            "models": len({r["model"] for r in rows}), "overrides": ", ".join(spelled)}


def render_sweep(directory: Path) -> list[Path]:
    """Write sweep.html and sweep.md into ``directory`` from its sweep.json; return the paths written."""
    context = sweep_context(directory)
    written = []
    for name in ("sweep.html", "sweep.md"):
        path = directory / name
        path.write_text(render_named(f"{name}.j2", context), encoding="utf-8")
        written.append(path)
    return written
