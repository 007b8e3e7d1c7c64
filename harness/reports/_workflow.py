"""Report context for the workflows around a run (issue 13): the CI gate's expectations, the
plan's command-line overrides, infrastructure trouble per group, and the triage filter's choices."""

from __future__ import annotations

from typing import Any

from harness.report import kinds_text


def _infra_row(entry: dict[str, Any]) -> dict[str, Any]:
    failed = entry.get("failedAttempts") or {}
    gave_up = entry.get("failedCalls") or {}
    return {"group": entry.get("group"), "calls": entry.get("calls", 0), "retries": entry.get("retries", 0),
            "attempts": sum(failed.values()), "attemptKinds": kinds_text(failed) or "—",
            "gaveUp": sum(gave_up.values()), "gaveUpKinds": kinds_text(gave_up) or "—",
            "errorTrials": entry.get("errorTrials", 0)}


def infrastructure(report: dict[str, Any]) -> dict[str, Any]:
    """Rows per group and a one-line total; ``known`` is False for a report from before this was kept."""
    entries = report.get("infrastructure")
    if entries is None:
        return {"known": False, "rows": [], "total": ""}
    rows = [_infra_row(e) for e in entries]
    retries = sum(r["retries"] for r in rows)
    attempts = sum(r["attempts"] for r in rows)
    gave_up = sum(r["gaveUp"] for r in rows)
    errors = sum(r["errorTrials"] for r in rows)
    if not (attempts or errors):
        total = "No model call attempt failed: no retries, no infrastructure errors."
    else:
        total = (f"{attempts} failed call attempt{'s' if attempts != 1 else ''} ({retries} retried), "
                 f"{gave_up} call{'s' if gave_up != 1 else ''} gave up, {errors} error trial"
                 f"{'s' if errors != 1 else ''}. None of it counts as a model failure: error trials are retried "
                 "as new trials and are not in any pass rate.")
    return {"known": True, "rows": rows, "total": total, "troubled": bool(attempts or errors)}


def _overrides(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The overrides with the plan's value in words where it had none (``seed`` unset)."""
    return [{**o, "plan": "unset" if o.get("plan") is None else o["plan"]} for o in report.get("overrides") or []]


def gate(report: dict[str, Any]) -> dict[str, Any]:
    results = report.get("expectations") or []
    unmet = [r for r in results if not r.get("met")]
    return {"results": results, "unmet": unmet, "overrides": _overrides(report),
            "stopped": report.get("status") != "completed"}


def triage(trials: list[dict[str, Any]]) -> dict[str, Any]:
    """The filter's choices: the groups, stages and failure modes the trials have, in report order."""
    return {"groups": list(dict.fromkeys(str(t["group"]) for t in trials)),
            "stages": list(dict.fromkeys(str(t["stage"]) for t in trials)),
            "modes": sorted({str(t["failureMode"]) for t in trials if t.get("failureMode")}),
            "failed": sum(t.get("status") == "failed" for t in trials), "total": len(trials)}


def console_lines(report: dict[str, Any]) -> list[str]:
    """What ``harness run`` prints under its table: the plan's overrides and the infrastructure per group."""
    lines = []
    overrides = _overrides(report)
    if overrides:
        lines.append("overrides of the plan: " + "; ".join(f"{o['option']} ({o['path']}: plan {o['plan']}, ran "
                                                            f"{o['value']})" for o in overrides))
    infra = infrastructure(report)
    if infra["known"]:
        lines.append("infrastructure: " + infra["total"])
        for r in infra["rows"] if infra["troubled"] else []:
            if r["attempts"] or r["errorTrials"]:
                lines.append(f"  {r['group']}: {r['calls']} calls, {r['attempts']} failed attempts "
                             f"({r['attemptKinds']}), {r['retries']} retried, {r['gaveUp']} gave up"
                             + (f" ({r['gaveUpKinds']})" if r["gaveUp"] else "")
                             + f", {r['errorTrials']} error trial{'' if r['errorTrials'] == 1 else 's'}")
    return lines
