"""``groupDifferences`` of report.json from the recorded requests (issue 9, the difference panel).

Each group is compared with the placement control on the first agent request of the first stage
(in plan order) both ran, taking each side's first trial that made a request. Requests come from the
run's session store (the snapshots the engine wrote).
"""

from __future__ import annotations

import json
from typing import Any

from harness.report import summarize
from harness.report._differences import GroupDifference, RolePair, StateDifference, StatePlace, word_diff

from ._records import TrialRecord
from ._runner import Experiment


def _first_request(exp: Experiment, records: list[TrialRecord]) -> dict[str, Any] | None:
    for record in sorted(records, key=lambda r: (r.repeat, r.attempt)):
        if not record.sessionId:
            continue
        for _, snap in exp.store.snapshots(record.sessionId):
            if isinstance(snap, dict) and snap.get("role") == "agent" and snap.get("request"):
                return snap
    return None


def _state(snap: dict[str, Any]) -> tuple[StatePlace | None, str]:
    for pos, source in enumerate(snap.get("sources") or []):
        if source.get("type") == "context_state":
            message = snap["request"]["messages"][pos]
            return StatePlace(position=pos, role=str(message.get("role"))), str(message.get("content") or "")
    return None, ""


def _system(snap: dict[str, Any]) -> str:
    messages = snap["request"]["messages"]
    return str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""


def _tools(control: dict[str, Any], group: dict[str, Any]) -> list[str]:
    def by_name(snap: dict[str, Any]) -> dict[str, str]:
        return {str(t.get("function", t).get("name")): json.dumps(t, sort_keys=True, ensure_ascii=False)
                for t in snap["request"].get("tools") or []}

    a, b = by_name(control), by_name(group)
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


def _others(control: dict[str, Any], group: dict[str, Any]) -> list[str]:
    def rest(snap: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        sources = snap.get("sources") or [{}] * len(snap["request"]["messages"])
        return [(str(s.get("type")), m) for s, m in zip(sources, snap["request"]["messages"], strict=True)
                if s.get("type") not in ("system", "context_state")]

    a, b = rest(control), rest(group)
    out = [f"{kind} (history position {pos}): content differs"
           for pos, ((kind, ma), (_, mb)) in enumerate(zip(a, b, strict=False))
           if json.dumps(ma, sort_keys=True, ensure_ascii=False) != json.dumps(mb, sort_keys=True, ensure_ascii=False)]
    if len(a) != len(b):
        out.append(f"the control has {len(a)} messages besides system and state, the group {len(b)}")
    return out


def group_differences(exp: Experiment) -> list[GroupDifference]:
    """One entry per selected group other than the placement control (none without a store or control)."""
    spec = exp.plan.findings
    control = spec.placementControl
    roles = {getattr(spec, role): role for role in ("baselineGroup", "controlGroup", "sentinelGroup", "roleGroup",
                                                    "positionGroup") if getattr(spec, role) is not None}
    if exp.store is None:  # a rescore has no store: it carries the recording's panel over
        return []
    out = []
    for group in exp.selected_groups():
        if group.id == control:
            continue
        for stage in exp.plan.stages:
            mine, theirs = exp.stage_records(group.id, stage.id), exp.stage_records(control, stage.id)
            snap, base = _first_request(exp, mine), _first_request(exp, theirs)
            if snap is None or base is None:
                continue
            (cs, ctext), (gs, gtext) = _state(base), _state(snap)
            out.append(summarize(GroupDifference(
                group=group.id, control=control, stage=stage.id, groupRequest=str(snap.get("id")),
                controlRequest=str(base.get("id")), systemPrompt=word_diff(_system(base), _system(snap)),
                tools=_tools(base, snap),
                messageRoles=RolePair(control=[str(m.get("role")) for m in base["request"]["messages"]],
                                      group=[str(m.get("role")) for m in snap["request"]["messages"]]),
                stateMessage=StateDifference(control=cs, group=gs,
                                             text=word_diff(ctext, gtext) if cs and gs else []),
                otherMessages=_others(base, snap)), roles.get(group.id)))
            break
    return out
