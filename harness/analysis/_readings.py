"""The X-40 rules' sentences in parts (``placement-v3``): what happened, the differences (worse, better)
the rule's reading claims, the reading as stated when every one is shown (X-41), the reading as
"consistent with …" when not, and what the finding does not show. ``_findings`` assembles them with
the n and p each rests on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from harness.plan import FindingsSpec


class Reading(NamedTuple):
    """A rule's sentence in parts: what happened, the comparisons (worse, better) its reading claims, the
    reading when they are separable, the reading as "consistent with …" when not, and what it does not show."""

    happened: str
    pairs: list[tuple[str, str]]
    shown: str
    consistent: str
    not_shown: str


def reading(rule: str, s: FindingsSpec, f: Callable[[Sequence[str]], str], failed: Sequence[str]) -> Reading:
    """The parts of ``rule``'s sentence; ``f(groups)``: ``failed simple`` (the stages the groups failed)."""
    a, b, c, v1, v2 = s.placementControl, s.positionGroup, s.roleGroup, s.controlGroup, s.sentinelGroup
    beyond = "nor that it holds for other models, tasks or a larger n (see the comparisons for separability)"
    table = {
        "trailing-assistant-implicated": Reading(
            f"{a} (trailing assistant state) {f([a])} while {b} (state before the history) and {c} (state as a "
            "user message) did not", [(a, b), (a, c)],
            "the trailing assistant placement is implicated; moving the state before the history and giving it the "
            "user role each remove the failure",
            "the trailing assistant placement being implicated (moving the state before the history, or giving it "
            "the user role, removing the failure)",
            f"Which of position or role matters more, or that B or C is free of other risks; {beyond}."),
        "position-implicated": Reading(
            f"{a} and {c} (state after the history) {f([a, c])} while {b} (state before the history) "
            "did not", [(a, b), (c, b)],
            "the position of the state block is implicated; moving it helps, changing its role alone does not",
            "the position of the state block being implicated (moving it helping, changing its role alone not)",
            f"That role plays no part, or that placement B is free of costs (it breaks prompt caching); {beyond}."),
        "role-implicated": Reading(
            f"{a} and {b} (state as an assistant message) {f([a, b])} while {c} (state as a user "
            "message) did not", [(a, c), (b, c)],
            "the role of the state block is implicated; the user role helps, moving it alone does not",
            "the role of the state block being implicated (the user role helping, moving it alone not)",
            "That a user-role state is safe (a model may take it for the user's request, the risk of C); "
            f"{beyond}."),
        "placement-not-the-remedy": Reading(
            f"{a}, {b} and {c} all {f([a, b, c])} while the sentinel control {v1} did not",
            [(a, v1), (b, v1), (c, v1)],
            "the state block or the prompt shared by unified@3 derails this model whatever the placement; placement "
            "is not the remedy",
            "the state block or the prompt shared by unified@3 derailing this model whatever the placement",
            f"Whether the state block or the shared v3 prompt is responsible; {beyond}."),
        "not-reproduced-under-v3-prompt": Reading(
            f"none of {a}, {b}, {c} failed, but {v2} {f([v2])}", [(v2, a), (v2, b), (v2, c)],
            "the anomaly did not reproduce under unified@3; the changes its groups share (the prompt without v2's "
            "positional words, the state text's view sentence) may explain it",
            "the changes the unified@3 groups share (the prompt without v2's positional words, the state text's "
            "view sentence) explaining the anomaly's absence",
            "Any attribution to the position or role of the state block: A, B and C differ from v2 in the "
            "prompt and the state text as well, so no placement is credited with the fix."),
        "placement-worse-than-control": Reading(
            f"{a} (the placement control) did not fail, but {' and '.join(failed)} {f(failed)}",
            [(g, a) for g in failed],
            f"{'that placement is' if len(failed) == 1 else 'those placements are'} worse than the placement "
            "control on this model",
            f"{'that placement' if len(failed) == 1 else 'those placements'} being worse than the placement "
            "control on this model",
            f"Why {' and '.join(failed)} {'did' if len(failed) == 1 else 'each did'} worse than the placement "
            f"control {a} (read the failure modes and transcripts); {beyond}."),
    }
    return table[rule]
