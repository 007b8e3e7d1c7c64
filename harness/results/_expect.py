"""The CI gate: the plan's ``expect`` and ``--expect`` compared with the stage outcomes.

An expectation is met only when the stage ended with exactly the expected status. A group and
stage the selection (``--group`` / ``--stage``) left out did not run: its actual status is
``not_selected`` and the expectation is not met, since a gate must not pass on evidence that was
never gathered. On the same group and stage, ``--expect`` replaces the plan's expectation.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.plan import Expectation, Plan, conflict, expectation_problem, parse_expectation

from ._workflow import ExpectationResult

NOT_SELECTED = "not_selected"


def parse_cli_expectations(plan: Plan, texts: list[str]) -> tuple[list[Expectation], list[str]]:
    """``--expect`` values → expectations, and the problems (each naming the value) for exit 2."""
    out: list[Expectation] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], Expectation] = {}
    for text in texts:
        try:
            exp = parse_expectation(text)
        except ValueError as exc:
            problems.append(f"--expect {text}: {exc}")
            continue
        problem = expectation_problem(plan, exp) or conflict(seen, exp)
        if problem is not None:
            problems.append(f"--expect {text}: {problem}")
            continue
        seen.setdefault((exp.group, exp.stage), exp)
        out.append(exp)
    return out, problems


def merged(plan: Plan, cli: list[Expectation]) -> list[tuple[Expectation, str]]:
    """The plan's expectations and the command line's, ``--expect`` winning on the same group and stage."""
    from_cli = {(e.group, e.stage) for e in cli}
    plan_side = [(e, "plan") for e in map(parse_expectation, plan.expect) if (e.group, e.stage) not in from_cli]
    return plan_side + [(e, "cli") for e in dict.fromkeys(cli)]


def evaluate(plan: Plan, cli: list[Expectation], outcomes: Mapping[tuple[str, str], str]) -> list[ExpectationResult]:
    """Every expectation with the actual status of its stage (``outcomes``: (group, stage) → status)."""
    results = []
    for exp, source in merged(plan, cli):
        actual = outcomes.get((exp.group, exp.stage), NOT_SELECTED)
        results.append(ExpectationResult(group=exp.group, stage=exp.stage, expected=exp.status, actual=actual,
                                         met=actual == exp.status, source=source))
    return results


def unmet(results: list[ExpectationResult]) -> list[ExpectationResult]:
    return [r for r in results if not r.met]


def describe(result: ExpectationResult) -> str:
    """``A:simple=passed: expected passed, was failed`` (and why a stage has no status)."""
    why = " (left out by --group/--stage: it did not run)" if result.actual == NOT_SELECTED else ""
    return f"{result.text}: expected {result.expected}, was {result.actual}{why}"
