"""The design section of both renderings: the review of the plan as run (what each planned comparison
could show at its n, the design problems and notes with their fixes) and, for each sequential stage,
its looks: n per group, each comparison's p against the look's boundary, and where it stopped."""

from __future__ import annotations

from typing import Any

from harness.analysis import ALPHA, TITLES, SequentialDesign, boundary_text, design_text, format_p, small_p


def report_alpha(report: dict[str, Any]) -> float:
    """The α the report's comparisons were judged at: the plan's ``analysis.alpha`` as its design review
    states it (a report written before the review was recorded was judged at the default)."""
    alpha = (report.get("design") or {}).get("alpha")
    return float(alpha) if isinstance(alpha, int | float) else ALPHA


def report_test(report: dict[str, Any]) -> str:
    """The test's name as the report says it: the design review's, else its comparisons' (a report written
    before the test was a choice: Fisher's)."""
    test = (report.get("design") or {}).get("test") or next(
        (c.get("test") for c in report.get("comparisons", []) if c.get("test")), "fisher")
    return TITLES.get(test, str(test))


def _review(review: dict[str, Any]) -> dict[str, Any]:
    alpha = float(review.get("alpha", ALPHA))
    rows = [{"stage": c["stage"], "comparison": f"{c['group']} vs {c['other']}",
             "n": str(c["n"]) if c["n"] == c["otherN"] else f"{c['n']} vs {c['otherN']}",
             "smallest": format_p(c["smallestP"], alpha),
             "cutoff": "—" if c.get("cutoff") is None else f"{c['cutoff']:.3g}",
             "separable": "after the others" if c.get("gated") else "possible" if c["separablePossible"] else "never",
             "nSeparable": "—" if c.get("nSeparable") is None else c["nSeparable"],
             "power": "—" if c.get("power") is None or c.get("gated") else f"{c['power']:.2f}",
             "powerAlone": "—" if c.get("powerAlone") is None else f"{c['powerAlone']:.2f}",
             "nForPower": "—" if c.get("nForPower") is None else c["nForPower"]} for c in review.get("comparisons", [])]
    effect = review.get("effect")
    family = review.get("family")
    return {"alpha": f"{alpha:g}", "rows": rows, "findings": review.get("findings", []),
            "family": None if family is None else family.get("statement"),
            "test": TITLES.get(review.get("test") or "fisher", "Fisher"),
            "effect": None if effect is None else f"{effect['control']:g} vs {effect['treatment']:g}",
            "target": f"{float(review.get('targetPower', 0.8)):.0%}"}


def _look(look: dict[str, Any], test: str) -> dict[str, Any]:
    boundary = float(look["boundary"])
    tests = []
    for c in look.get("comparisons", []):
        p = c.get("pValue", c.get("fisherP"))
        shown = "no p" if p is None else f"{test} p = {small_p(p, boundary)}"
        tests.append(f"{c['group']} vs {c['other']} {c['passes']}/{c['n']} vs {c['otherPasses']}/{c['otherN']}, "
                     f"{shown}{' (crossed)' if c.get('crossed') else ''}")
    return {"look": look["look"], "repeats": look["repeats"], "boundary": boundary_text(boundary),
            "n": ", ".join(f"{g} {n}" for g, n in (look.get("n") or {}).items()), "tests": "; ".join(tests),
            "crossed": bool(look.get("crossed"))}


def _sequential(result: dict[str, Any]) -> dict[str, Any]:
    d = SequentialDesign.model_validate(result["design"])
    design = ("Comparisons that decide a stop: " + ", ".join(f"{g} vs {o}" for g, o in d.comparisons) + "; "
              + design_text(d))
    return {"stage": result["stage"], "design": design, "outcome": result["outcome"],
            "statement": result["statement"], "looks": [_look(lk, TITLES[d.test]) for lk in result.get("looks", [])]}


def design(report: dict[str, Any]) -> dict[str, Any]:
    review = report.get("design")
    return {"review": None if review is None else _review(review),
            "sequential": [_sequential(r) for r in report.get("sequential") or []]}
