"""Checks across the parts of a plan, each reported at its own JSON path (X-1, X-3, X-4).

``option_errors`` works on the raw JSON so protocol options are reported even when another part
of the plan is malformed; ``reference_errors`` needs a structurally valid ``Plan``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from harness.models import param_problem
from protocols import CATALOG, OptionsError, resolve

from ._expect import STAGE_STATUSES, Expectation, conflict, parse_expectation
from ._models import Plan
from ._sequential_checks import sequential_errors

Loc = tuple[str | int, ...]
Problem = tuple[Loc, str]

# findings role → (protocol key, required stateMessagePlacement or None) for the placement-v3 rules
_PLACEMENT_V3_ROLES: dict[str, tuple[str, str | None]] = {
    "controlGroup": ("unified@1", None),
    "placementControl": ("unified@3", "trailing_assistant"),
    "positionGroup": ("unified@3", "before_history_assistant"),
    "roleGroup": ("unified@3", "trailing_user"),
    "sentinelGroup": ("unified@2", None),
    "baselineGroup": ("prefix@2", None),
}


def option_errors(raw: Any) -> list[Problem]:
    """Validate every group's protocol options with the catalog (P-61), on the raw plan JSON."""
    if not isinstance(raw, dict) or not isinstance(raw.get("groups"), list):
        return []
    problems: list[Problem] = []
    for i, group in enumerate(raw["groups"]):
        proto = group.get("protocol") if isinstance(group, dict) else None
        if not isinstance(proto, dict):
            continue
        pid, version, options = proto.get("id"), proto.get("version"), proto.get("options", {})
        if not isinstance(pid, str) or type(version) is not int or not isinstance(options, dict):
            continue  # structural errors are reported by the model validation
        loc: Loc = ("groups", i, "protocol")
        try:
            resolve(pid, version, options)
        except OptionsError as exc:
            problems += _field_problems(f"{pid}@{version}", options, loc) or [(loc, str(exc))]
    return problems


def _field_problems(key: str, options: dict[str, Any], loc: Loc) -> list[Problem]:
    """One problem per bad option, at ``…protocol.options.<name>``; [] if not field-level."""
    entry = CATALOG.get(key)
    if entry is None:
        return []
    try:
        entry.options.model_validate(options)
    except ValidationError as exc:
        out: list[Problem] = []
        for err in exc.errors():
            where = (*loc, "options", *err["loc"])
            if err["type"] == "extra_forbidden":
                out.append((where, f"unknown option for {key}"))
            else:
                out.append((where, f"{err['msg']} (got {err.get('input')!r})"))
        return out
    return []


def reference_errors(plan: Plan) -> list[Problem]:
    return [*_id_errors(plan), *_stage_errors(plan), *sequential_errors(plan), *_findings_errors(plan),
            *_expect_errors(plan), *_param_errors(plan)]


def _param_errors(plan: Plan) -> list[Problem]:
    """Each ``models.params`` key that is a credential, the harness's own, or ``reasoning_effort``
    (which has its own field), at its own path."""
    out: list[Problem] = []
    for key in plan.models.params:
        if key == "reasoning_effort":
            out.append((("models", "params", key), "use models.reasoningEffort (or --reasoning-effort)"))
        elif (problem := param_problem(key)) is not None:
            out.append((("models", "params", key), problem))
    return out


def _duplicates(ids: list[str], where: str) -> list[Problem]:
    seen: set[str] = set()
    out: list[Problem] = []
    for i, value in enumerate(ids):
        if value in seen:
            out.append(((where, i, "id"), f"duplicate {where[:-1]} id {value!r}"))
        seen.add(value)
    return out


def _id_errors(plan: Plan) -> list[Problem]:
    return _duplicates([g.id for g in plan.groups], "groups") + _duplicates([s.id for s in plan.stages], "stages")


def _stage_errors(plan: Plan) -> list[Problem]:
    group_ids = {g.id for g in plan.groups}
    order = {s.id: i for i, s in enumerate(plan.stages)}
    tools = set(plan.agent.businessTools)
    out: list[Problem] = []
    for si, stage in enumerate(plan.stages):
        for ri, req in enumerate(stage.requires):
            if req not in order:
                out.append((("stages", si, "requires", ri), f"unknown stage {req!r}"))
            elif order[req] >= si:
                out.append((("stages", si, "requires", ri),
                            f"stage {req!r} does not run before {stage.id!r} (stages run in plan order, X-10)"))
        for gi, gid in enumerate(stage.groups or []):
            if gid not in group_ids:
                out.append((("stages", si, "groups", gi), f"unknown group {gid!r}"))
        if not plan.participants(stage):
            out.append((("stages", si, "groups"), _no_participants(stage.groups)))
        for ti, turn in enumerate(stage.turns):
            for ci, check in enumerate(turn.checks):
                tool = getattr(check, "tool", None)
                if tool is not None and not tool.startswith("context_") and tool not in tools:
                    out.append((("stages", si, "turns", ti, "checks", ci, "tool"),
                                f"{tool!r} is neither a context tool nor one of agent.businessTools"))
        for ci, trial_check in enumerate(stage.trialChecks):
            after = getattr(trial_check, "afterTurn", None)
            if after is not None and after > len(stage.turns):
                out.append((("stages", si, "trialChecks", ci, "afterTurn"),
                            f"turn {after} does not exist; the stage has {len(stage.turns)} turn(s)"))
    return out


def _no_participants(groups: list[str] | None) -> str:
    """A stage no group takes part in runs no trial, and a report must say nothing about it."""
    if groups is None:
        return ("no group takes part: null means every group that is not a baseline, and this plan has "
                "only baselines; name the groups")
    if not groups:
        return "no group takes part: an empty list runs no trial; name at least one group (or null for every " \
               "group that is not a baseline)"
    return "no group takes part (every group named is unknown)"


def _findings_errors(plan: Plan) -> list[Problem]:
    spec = plan.findings
    groups = {g.id: g for g in plan.groups}
    stage_ids = {s.id for s in plan.stages}
    out: list[Problem] = []
    for field, (key, placement) in _PLACEMENT_V3_ROLES.items():
        gid = getattr(spec, field)
        if gid is None:
            continue
        group = groups.get(gid)
        if group is None:
            out.append((("findings", field), f"unknown group {gid!r}"))
            continue
        if group.protocol.key != key:
            out.append((("findings", field),
                        f"group {gid!r} runs {group.protocol.key}; the {spec.rules} rules need {key} here"))
            continue
        if placement is not None:
            try:
                actual = resolve(group.protocol.id, group.protocol.version, group.protocol.options)
            except OptionsError:
                continue  # reported at the group's options
            if actual.resolved_options.get("stateMessagePlacement") != placement:
                out.append((("findings", field),
                            f"group {gid!r} must use stateMessagePlacement {placement!r} for this role"))
    role_fields = [f for f in _PLACEMENT_V3_ROLES if getattr(spec, f) is not None]
    for i, field in enumerate(role_fields):
        for other in role_fields[:i]:
            if getattr(spec, field) == getattr(spec, other):
                out.append((("findings", field), f"group {getattr(spec, field)!r} already plays {other}"))
    for i, sid in enumerate(spec.anomalyStages):
        if sid not in stage_ids:
            out.append((("findings", "anomalyStages", i), f"unknown stage {sid!r}"))
    if spec.baselineStage is not None and spec.baselineStage not in stage_ids:
        out.append((("findings", "baselineStage"), f"unknown stage {spec.baselineStage!r}"))
    return out


def _expect_errors(plan: Plan) -> list[Problem]:
    """Each ``expect`` entry names a group, a stage it takes part in and a stage status, once."""
    out: list[Problem] = []
    seen: dict[tuple[str, str], Expectation] = {}
    for i, text in enumerate(plan.expect):
        exp = parse_expectation(text)  # the syntax was checked by the model
        problem = expectation_problem(plan, exp) or conflict(seen, exp)
        if problem is not None:
            out.append((("expect", i), problem))
        seen.setdefault((exp.group, exp.stage), exp)
    return out


def expectation_problem(plan: Plan, exp: Expectation) -> str | None:
    """Why ``exp`` cannot be about ``plan`` (an unknown group, stage or status, or a group that does
    not take part in the stage), naming the unknown part and what the plan has; None when it can."""
    groups = [g.id for g in plan.groups]
    stages = [s.id for s in plan.stages]
    if exp.group not in groups:
        return f"unknown group {exp.group!r} (the plan has {', '.join(groups)})"
    if exp.stage not in stages:
        return f"unknown stage {exp.stage!r} (the plan has {', '.join(stages)})"
    if exp.status not in STAGE_STATUSES:
        return f"unknown status {exp.status!r} (a stage ends {', '.join(STAGE_STATUSES)})"
    takes = [g.id for g in plan.participants(plan.stage(exp.stage))]
    if exp.group not in takes:
        return f"group {exp.group!r} does not take part in stage {exp.stage!r} (its groups: {', '.join(takes)})"
    return None
