"""Expectations: ``GROUP:STAGE=STATUS`` triples that turn a run into a pass/fail gate (a run as a CI gate).

The one owner of the triple's syntax and of the statuses a stage can end with. A plan lists them in
``expect``; ``harness run --expect`` adds more (on the same group and stage the command line wins).
``harness.results._expect`` compares them with what the run found.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

StageStatus = Literal["passed", "failed", "inconclusive", "skipped", "not_reached"]
"""How a group's stage ended (X-10 … X-13); the statuses an expectation may name."""
STAGE_STATUSES: tuple[str, ...] = get_args(StageStatus)

SYNTAX = "GROUP:STAGE=STATUS, e.g. A:simple=passed"


class Expectation(NamedTuple):
    group: str
    stage: str
    status: str

    def __str__(self) -> str:
        return f"{self.group}:{self.stage}={self.status}"


def parse_expectation(text: str) -> Expectation:
    """``"A:simple=passed"`` → ``Expectation``; ``ValueError`` saying what is wrong with the syntax."""
    target, eq, status = text.partition("=")
    group, colon, stage = target.partition(":")
    group, stage, status = group.strip(), stage.strip(), status.strip()
    if not eq or not colon or not group or not stage or not status:
        raise ValueError(f"{text!r} is not {SYNTAX}")
    return Expectation(group, stage, status)


def conflict(seen: dict[tuple[str, str], Expectation], exp: Expectation) -> str | None:
    """A second, different expectation on the same group and stage (the first is in ``seen``)."""
    before = seen.get((exp.group, exp.stage))
    if before is not None and before.status != exp.status:
        return f"{exp.group}:{exp.stage} is already expected to be {before.status}"
    return None
