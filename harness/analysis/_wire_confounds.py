"""A finding and the wire (X-40, P-80): what a comparison cannot show when the provider received the
groups otherwise than the design says.

The findings rules read each treatment against the placement control as a single-variable
comparison: the position treatment differs only in the state message's position, the role treatment
only in its role (source: "B（只改位置）", "C（只改角色）"). When the provider's body shows more (the
role treatment's state merged into the user's own turn, the placement control's request a prefill),
a difference between the outcomes may come from that too. The finding's ``doesNotShow`` names it;
the confound sentences come from the difference panel (``results._differences``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.plan import FindingsSpec

from ._models import Finding

_NO_PLACEMENT = ("control-failed", "control-inconclusive")
"""Rules that draw no placement conclusion: a wire confound bears on none of them."""


def with_wire_confounds(findings: Sequence[Finding], spec: FindingsSpec,
                        confounds: Mapping[str, str]) -> list[Finding]:
    """``findings`` with each wire confound that bears on them named in ``doesNotShow``.

    ``confounds``: group → how it differs from the placement control on the wire beyond its design (a
    sentence of the difference panel); a confound bears on a finding whose basis holds the group."""
    out = []
    for finding in findings:
        groups = [g for g in confounds if g in finding.basis]
        if not groups or finding.rule.rsplit("/", 1)[-1] in _NO_PLACEMENT:
            out.append(finding)
            continue
        control = spec.placementControl
        lines = [f"What the {spec.term(g) or 'group'} {g} against the placement control {control} says of its "
                 f"designed difference alone: on the wire, {confounds[g]}" for g in groups]
        text = " ".join(f"{line.rstrip('.')} (a wire confound)." for line in lines)
        out.append(finding.model_copy(update={"doesNotShow": f"{finding.doesNotShow} {text}"}))
    return out
