"""Report context for the workflows around a run: the CI gate's expectations, the
plan's command-line overrides, infrastructure trouble per group, and the triage filter's choices."""

from __future__ import annotations

from typing import Any

from harness.results import SETUP_KINDS, kinds_text


def _infra_row(entry: dict[str, Any]) -> dict[str, Any]:
    failed = entry.get("failedAttempts") or {}
    gave_up = entry.get("failedCalls") or {}
    kinds = entry.get("errorKinds") or {}
    return {"group": entry.get("group"), "calls": entry.get("calls", 0), "retries": entry.get("retries", 0),
            "attempts": sum(failed.values()), "attemptKinds": kinds_text(failed) or "—",
            "gaveUp": sum(gave_up.values()), "gaveUpKinds": kinds_text(gave_up) or "—",
            "errorTrials": entry.get("errorTrials", 0), "errorKinds": kinds_text(kinds) or "—",
            "setUp": sum(n for k, n in kinds.items() if k in SETUP_KINDS),
            "rejected": kinds.get("rejected", 0), "notSent": entry.get("notSent", 0),
            "retriedTrials": entry.get("retriedTrials")}  # None: a report from before it was kept


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _retried_text(retried: int, errors: int) -> str:
    """``The 1 error trial was retried as a new trial`` / ``2 of the 3 error trials were retried as new trials``."""
    if not retried:
        return "No error trial was retried as a new trial"
    whom = f"The {_plural(errors, 'error trial')}" if retried == errors else \
        f"{retried} of the {_plural(errors, 'error trial')}"
    return f"{whom} {'was' if retried == 1 else 'were'} retried as {'a new trial' if retried == 1 else 'new trials'}"


def retry_text(rows: list[dict[str, Any]], infra_retries: int | None) -> str:
    """What happened to the error trials, true to the plan's ``infraRetries`` and the error kinds."""
    errors = sum(r["errorTrials"] for r in rows)
    if not errors:
        return ""
    if any(r["retriedTrials"] is None for r in rows if r["errorTrials"]):
        return "Which error trials were retried is not recorded in this report."
    retried = sum(r["retriedTrials"] for r in rows)
    set_up = sum(r["setUp"] for r in rows)
    rejected = sum(r.get("rejected", 0) for r in rows)
    rest = max(0, errors - retried - set_up - rejected)
    parts = [_retried_text(retried, errors)]
    if set_up:
        parts.append(f"{set_up} {'is a set-up error' if set_up == 1 else 'are set-up errors'} (the scripted model "
                     "cannot read this input), never retried: a new trial would read it the same way")
    if rejected:
        unsent = sum(r.get("notSent", 0) for r in rows)
        again = (f" ({unsent} of them not sent at all: the provider had refused the very same request earlier in "
                 "the run)") if unsent else ""
        parts.append(f"{rejected} ended with a request the provider rejected (4xx, or a chat template's error), "
                     f"never retried: a new trial would send the same request{again}")
    if rest and infra_retries == 0:
        parts.append(f"{rest} not retried: the plan allows no retry (stop.infraRetries = 0)")
    elif rest and infra_retries is not None:
        parts.append(f"{rest} not retried: a repeat gets at most {_plural(infra_retries, 'new trial')} "
                     "(stop.infraRetries), or the run stopped before the retry")
    elif rest:
        parts.append(f"{rest} not retried")
    return "; ".join(parts) + "."


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
        total = (f"{_plural(attempts, 'failed call attempt')} ({retries} retried), {_plural(gave_up, 'call')} gave "
                 f"up, {_plural(errors, 'error trial')}. " + (retry_text(rows, report.get("infraRetries")) + " "
                                                                 if errors else "")
                 + "None of it counts as a model failure: no error trial is in any pass rate.")
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
                             + f", {_plural(r['errorTrials'], 'error trial')}"
                             + (f" ({r['retriedTrials']} retried as "
                                f"{'a new trial' if r['retriedTrials'] == 1 else 'new trials'})"
                                if r["errorTrials"] and r["retriedTrials"] is not None else ""))
    return lines
