"""The evidence table of both renderings: per group × stage, how many trials have a
verdict, how many distinct answers they gave (identical repeats are one sample repeated), and
which checks were not exercised there; and the sampling the agent calls were sent with."""

from __future__ import annotations

from typing import Any


def _value(value: Any) -> str:
    return "not sent" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def evidence(report: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for g in report.get("groups", []):
        for s in g.get("stages", []):
            n = int((s.get("passRate") or {}).get("n") or 0)
            distinct = s.get("distinctAnswers")  # null: a report written before it was recorded
            missing = [f"{x['check']} ×{x['trials']} "
                       f"({'required: not passed' if x.get('required', True) else 'not required'})"
                       for x in s.get("notExercised") or []]
            if not n and not missing:
                continue
            rows.append({"group": g["id"], "stage": s["id"], "n": n,
                         "distinct": "—" if distinct is None else distinct,
                         "identical": distinct is not None and n >= 2 and distinct < n,
                         "notExercised": "; ".join(missing) or "—",
                         "why": "; ".join(f"{x['check']}: {x['detail']}" for x in s.get("notExercised") or [])})
    sampling = (report.get("model") or {}).get("sampling") or {}
    seed = sampling.get("seed")
    text = (f"temperature {_value(sampling.get('temperature'))}, topP {_value(sampling.get('topP'))}, seed "
            + (f"{seed} + repeat − 1 (repeat r of each stage)" if seed is not None else "not sent"))
    return {"rows": rows, "sampling": text}
