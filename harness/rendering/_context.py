"""One context for both renderings (HTML and Markdown): the headline, the gating table, the
comparisons, cost and repeated tool calls, all derived from report.json and metrics.duckdb."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.analysis import TITLES, FamilySummary, adjusted_text, format_p, verdict_text
from harness.results import unknown_usd

from ._data import SEGMENTS, group_ids, repeat_totals, segment_table, token_totals
from ._design import report_alpha, report_test

SPENT_KEYS = ("usd", "inputTokens", "cachedInputTokens", "outputTokens", "totalTokens", "llmCalls", "cachedResponses",
              "wallSeconds")


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _interval(pair: Any) -> str:
    if not pair or pair[0] is None:
        return "—"
    return f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def _why_skipped(reason: str, failures: int) -> str:
    if reason.startswith("fail_fast"):
        return f"fail-fast after {failures} failure{'' if failures == 1 else 's'}"
    if reason.startswith("stopped: "):
        return f"the run stopped ({reason.removeprefix('stopped: ')})"
    return reason or "no reason recorded"


def skipped_text(stage: dict[str, Any]) -> str:
    """``1 repeat skipped: fail-fast after 2 failures``: the repeats of a stage that never ran (their
    latest attempt is ``skipped``), so a cell reading 0/2 under a "3 repeats" label says where the third went."""
    latest: dict[int, dict[str, Any]] = {}
    for t in stage.get("trials") or []:
        if t.get("attempt", 0) >= latest.get(t.get("repeat", 0), {}).get("attempt", -1):
            latest[t.get("repeat", 0)] = t
    failures = sum(t.get("status") == "failed" for t in latest.values())
    reasons = Counter(_why_skipped(str(t.get("error") or ""), failures)
                      for t in latest.values() if t.get("status") == "skipped")
    return "; ".join(f"{n} repeat{'' if n == 1 else 's'} skipped: {why}" for why, n in reasons.items())


def _cell(stage: dict[str, Any], pass_k: bool = True) -> dict[str, Any]:
    rate = stage.get("passRate") or {}
    ks = (stage.get("passHatK") or {}) if pass_k else {}
    return {"status": stage.get("status", "not_reached"), "passes": rate.get("passes"), "n": rate.get("n"),
            "wilson": _interval(rate.get("wilson95")),
            "passHatK": ", ".join(f"k={k}: {v:.2f}" for k, v in ks.items() if v is not None),
            "skipped": skipped_text(stage),
            "failureModes": ", ".join(f"{mode} ×{n}" for mode, n in (stage.get("failureModes") or {}).items())}


def uses_pass_k(report: dict[str, Any]) -> bool:
    """pass^k is shown only where the findings rules read it (placement-v3, X-40); placement-rates compares
    pass rates."""
    return not any(str(f.get("rule", "")).startswith("placement-rates") for f in report.get("findings", []))


def headline(report: dict[str, Any]) -> dict[str, Any]:
    failing = []
    for g in report.get("groups", []):
        stages = [s["id"] for s in g.get("stages", []) if s.get("status") == "failed"]
        if stages:
            failing.append({"group": g["id"], "label": g.get("label") or g["id"], "stages": stages})
    alpha = report_alpha(report)
    comps = [c for c in report.get("comparisons", []) if _p(c) is not None and c.get("separable") is not None]
    test = report_test(report)
    apart = [c for c in comps if c.get("separable")]
    adjusted = any(c.get("adjustedP") is not None for c in comps)
    held = " in the family of claims" if adjusted else ""
    ns = sorted({int(c["groupN"]) for c in comps} | {int(c["controlN"]) for c in comps})
    n_text = "n=" + "/".join(str(n) for n in ns) if ns else "this n"
    if not comps:
        separation = "No comparison with the placement control had trials with a verdict on both sides."
    elif not apart:
        control = comps[0].get("control", "")
        separation = (f"Not separable at this n: at {n_text} trials per group and stage, none of the "
                      f"{len(comps)} comparisons with the placement control {control}{held} separates the groups "
                      f"(two-sided {test} {'adjusted ' if adjusted else ''}p ≥ {alpha:g}, on the distinct answers "
                      "where identical repeats are one sample).")
    else:
        separation = "Separable at this n: " + "; ".join(
            f"{c['group']} vs {c['control']} in {c['stage']} ({test} {adjusted_text(_p(c), c.get('adjustedP'), alpha)})"
            for c in apart) + "."
        repeated = _repeated(report, apart)
        if repeated:
            separation += (f" But the repeats behind {'it' if len(apart) == 1 else 'them'} are identical answers "
                           f"({', '.join(repeated)}): one sample repeated, not independent draws, so the p-values "
                           "overstate the evidence (see the findings and caveats).")
    budget = report.get("budget") or {}
    limits, spent = budget.get("limits") or {}, dict(budget.get("spent") or {})
    if "inputTokens" in spent and "outputTokens" in spent:  # the maxTotalTokens cap counts both
        spent["totalTokens"] = spent["inputTokens"] + spent["outputTokens"]
    not_applicable = budget.get("notApplicable") or {}
    unknown = unknown_usd(report)
    rows = [{"name": k, "spent": unknown if k == "usd" and spent.get(k) is None and k in spent else _fmt(spent.get(k)),
             "limit": _fmt(_limit(limits, k)) + (" (not applicable: price unknown)"
                                                 if k == "usd" and "maxUsd" in not_applicable
                                                 and _limit(limits, k) is not None else "")}
            for k in SPENT_KEYS if (k in spent or _limit(limits, k) is not None)
            and (k != "cachedResponses" or spent.get(k))]  # shown only when the cache answered something
    model = report.get("model") or {}
    return {"plan": report.get("plan") or {}, "modelKind": model.get("kind", "?"), "agent": model.get("agent"),
            "maintainer": model.get("maintainer"), "status": report.get("status"),
            "stopReason": report.get("stopReason"), "stopDetail": report.get("stopDetail"), "failing": failing,
            "separation": separation, "budget": rows, "notApplicable": not_applicable,
            "prices": prices(report), "findings": report.get("findings", []),
            "family": family_line(report)}


def family_line(report: dict[str, Any]) -> str | None:
    """What the report says once, where the findings are, of its family (null for a report written before)."""
    family = report.get("family")
    return None if not family else FamilySummary.model_validate(family).line()


def _repeated(report: dict[str, Any], compared: list[dict[str, Any]]) -> list[str]:
    """``A/simple 1 distinct of 4`` for each compared group × stage whose repeats are not independent draws
    (fewer distinct answers than trials, sampling not above temperature 0)."""
    temperature = ((report.get("model") or {}).get("sampling") or {}).get("temperature")
    if isinstance(temperature, int | float) and temperature > 0:
        return []
    cells = {(g["id"], s["id"]): s for g in report.get("groups", []) for s in g.get("stages", [])}
    out = []
    for key in dict.fromkeys((g, c["stage"]) for c in compared for g in (c["group"], c["control"])):
        stage = cells.get(key) or {}
        distinct, n = stage.get("distinctAnswers"), (stage.get("passRate") or {}).get("n", 0)
        if isinstance(distinct, int) and distinct < n:
            out.append(f"{key[0]}/{key[1]} {distinct} distinct of {n}")
    return out


_SOURCES = {"cli": "--price", "plan": "the plan's models.prices", "scripted-builtin": "built in (scripted, $0)",
            "litellm": "litellm's price map", "local-unknown": "price unknown (local model)",
            "litellm-gateway": "litellm's price map, served through a loopback gateway",
            "unknown": "price unknown"}


def prices(report: dict[str, Any]) -> list[dict[str, str]]:
    """The price table (X-22), one row per model, with where each price came from."""
    out = []
    for model, p in sorted(((report.get("model") or {}).get("prices") or {}).items()):
        known = p.get("inputPerMTok") is not None and p.get("outputPerMTok") is not None
        source = _SOURCES.get(p.get("source") or "", "source not recorded")
        if p.get("source") == "litellm-gateway":
            source = f"litellm's price for {model} (served through the gateway at {p.get('gateway') or 'loopback'})"
        text = (f"${p['inputPerMTok']:g} in / ${p['outputPerMTok']:g} out per million tokens ({source})" if known
                else source if source.startswith("price unknown") else f"price unknown ({source})")
        out.append({"model": model, "text": text})
    return out


def _limit(limits: dict[str, Any], key: str) -> Any:
    """Limits may be spelled ``usd`` or ``maxUsd`` (the plan's budget names)."""
    return limits.get(key, limits.get("max" + key[:1].upper() + key[1:]))


def gating(report: dict[str, Any]) -> dict[str, Any]:
    groups = report.get("groups", [])
    stages = list(dict.fromkeys(s["id"] for g in groups for s in g.get("stages", [])))
    pass_k = uses_pass_k(report)
    rows = []
    for g in groups:
        by_id = {s["id"]: s for s in g.get("stages", [])}
        rows.append({"group": g["id"], "role": g.get("term") or g.get("role"),
                     "protocol": f"{(g.get('protocol') or {}).get('id')}@{(g.get('protocol') or {}).get('version')}",
                     "cells": [_cell(by_id[s], pass_k) if s in by_id else _cell({"status": "not_planned"})
                               for s in stages]})
    return {"stages": stages, "rows": rows}


def _p(c: dict[str, Any]) -> Any:
    """A comparison's p (``fisherP`` in reports written before the test was a choice)."""
    return c.get("pValue", c.get("fisherP"))


def comparisons(report: dict[str, Any]) -> list[dict[str, Any]]:
    alpha, out = report_alpha(report), []
    for c in report.get("comparisons", []):
        sep = c.get("separable")
        out.append({**c, "groupRate": f"{c.get('groupPasses')}/{c.get('groupN')}",
                    "controlRate": f"{c.get('controlPasses')}/{c.get('controlN')}",
                    "groupWilson": _interval(c.get("groupWilson95")),
                    "controlWilson": _interval(c.get("controlWilson95")),
                    "p": "—" if _p(c) is None else format_p(_p(c), alpha)
                    + ("" if c.get("samplesP") is None else f" (distinct answers: {format_p(c['samplesP'], alpha)})"),
                    "adjusted": "—" if c.get("adjustedP") is None else format_p(c["adjustedP"], alpha),
                    "test": TITLES.get(c.get("test") or "fisher", "Fisher"),
                    "verdict": "not compared" if _p(c) is None else "outside the family: a description" if sep is None
                    else (verdict_text(True, alpha, c.get("adjustedP") is not None) if sep else verdict_text(False))})
    return out


def costs(report: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    groups = group_ids(report)
    seg_tokens = segment_table(metrics, groups, "segments", "tokens")
    seg_usd = segment_table(metrics, groups, "segmentUsd", "usd")
    totals = token_totals(metrics, groups)
    repeats = repeat_totals(metrics, groups)
    unknown = unknown_usd(report)
    rows = [{"group": g, **{k: _fmt(int(v or 0)) if k != "usd" else (unknown if v is None else _fmt(v))
                            for k, v in totals[g].items()},
             "segments": [_fmt(int(seg_tokens[g][s])) for s in SEGMENTS]} for g in groups]
    # reasoning and cache-write columns only where a call reported some: a run without them reads as before
    reasoning = any((totals[g].get("reasoning_tokens") or 0) > 0 for g in groups)
    writes = any((totals[g].get("cache_write_tokens") or 0) > 0 for g in groups)
    return {"groups": groups, "segments": SEGMENTS, "rows": rows, "segTokens": seg_tokens, "segUsd": seg_usd,
            "reasoning": reasoning, "cacheWrites": writes,
            "totals": totals, "repeats": repeats,
            "repeatRows": [{"group": g, **repeats[g]} for g in groups], "repeated": metrics["repeated"]}
