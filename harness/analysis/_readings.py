"""The X-40 rules' sentences in parts (``placement-v3``): what happened, the differences (worse, better)
the rule's reading claims, the reading as stated when every one is shown (X-41), the reading as
"consistent with …" when not, and what the finding does not show. ``_findings`` assembles them with
the n and p each rests on. A reading claims only the differences it rests on: a comparison it does not
rest on (or one that is not separable) is "not shown", never read as "does not help"; X-40's "placement is
not the remedy" (A, B and C all fail) is worded and named by what its comparisons with v1 show,
``every-placement-fails``, as the placements are not compared with one another there."""

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
            f"the trailing assistant placement is implicated: moving the state before the history ({b}) and giving "
            f"it the user role ({c}) each pass more often than it",
            f"the trailing assistant placement being implicated ({b} and {c} each passing more often than {a})",
            f"Which of position or role matters more ({b} vs {c} is not among the differences it rests on), or that "
            f"{b} or {c} is free of other risks; {beyond}."),
        "position-implicated": Reading(
            f"{a} and {c} (state after the history) {f([a, c])} while {b} (state before the history) "
            "did not", [(a, b), (c, b)],
            f"the position of the state block is implicated: the state before the history ({b}) passes more often "
            f"than both states after it ({a} and {c})",
            f"the position of the state block being implicated ({b} passing more often than {a} and {c})",
            f"That the role plays no part: whether the user role alone ({c} vs {a}) helps is not among the "
            f"differences it rests on, so it is not shown either way; or that placement {b} is free of costs (it "
            f"breaks prompt caching); {beyond}."),
        "role-implicated": Reading(
            f"{a} and {b} (state as an assistant message) {f([a, b])} while {c} (state as a user "
            "message) did not", [(a, c), (b, c)],
            f"the role of the state block is implicated: the user-role state ({c}) passes more often than both "
            f"assistant-role states ({a} and {b})",
            f"the role of the state block being implicated ({c} passing more often than {a} and {b})",
            f"That the position plays no part: whether moving the state alone ({b} vs {a}) helps is not among the "
            "differences it rests on, so it is not shown either way; or that a user-role state is safe (a model may "
            f"take it for the user's request, the risk of C); {beyond}."),
        "every-placement-fails": Reading(
            f"{a}, {b} and {c} all {f([a, b, c])} while the sentinel control {v1} did not",
            [(a, v1), (b, v1), (c, v1)],
            "the state block or the prompt shared by unified@3 derails this model whatever the placement: every "
            f"placement passes less often than the sentinel control {v1}",
            "the state block or the prompt shared by unified@3 derailing this model whatever the placement",
            f"That placement cannot be the remedy: the placements are not compared with one another here, so no "
            f"difference between them is shown either way; whether the state block or the shared v3 prompt is "
            f"responsible; {beyond}."),
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
