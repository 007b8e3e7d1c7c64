"""Is a plan compatible with a recorded run? (``harness rescore RUN_DIR --plan PLAN``)

A rescore re-judges recorded trials with another plan's checks and findings rules. That is only
sound when the other plan would have produced the very same trials: the same agent, models'
sampling, maintenance and per-run limits, the same groups with the same protocols, the same
stages with the same repeats, sequential design (its looks decide which trials run), gating and
turn inputs. Checks, findings rules, labels, run-level
budget caps and stop conditions may differ; everything else is a difference that is named.
"""

from __future__ import annotations

from typing import Any

from harness.plan import Plan, ProtocolRef
from harness.results._records import TrialRecord
from protocols import resolve

_PER_RUN = ("maxStepsPerRun", "maxOutputTokensPerCall")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _fields(path: str, new: Any, old: Any, names: list[str]) -> list[str]:
    return [f"{path}.{n}: {_short(getattr(new, n))} here, {_short(getattr(old, n))} when recorded"
            for n in names if getattr(new, n) != getattr(old, n)]


def plan_differences(new: Plan, old: Plan, records: list[TrialRecord] | None = None) -> list[str]:
    """What in ``new`` would have run differently from the recorded plan ``old`` (JSON paths of ``new``).

    A longer ``timeoutSecondsPerCall`` runs the same trials when no recorded call attempt timed out (every
    call finished within the shorter one); a shorter one, or a longer one after a timeout, is a difference."""
    out = _fields("$.agent", new.agent, old.agent, list(type(new.agent).model_fields))
    out += _fields("$.models", new.models, old.models, ["sampling", "capacityTokens"])
    out += _fields("$.budget", new.budget, old.budget, list(_PER_RUN))
    out += _timeout_difference(new.budget.timeoutSecondsPerCall, old.budget.timeoutSecondsPerCall, records or [])
    out += _fields("$.stop", new.stop, old.stop, ["maxConsecutiveToolErrors"])
    if new.maintenance != old.maintenance:
        out.append("$.maintenance: differs from the recorded plan's (maintenance changes what the model saw)")
    out += _group_differences(new, old)
    out += _stage_differences(new, old)
    return out


def _timeout_difference(new: float | None, old: float | None, records: list[TrialRecord]) -> list[str]:
    """None: no per-call timeout (the longest)."""
    if new == old:
        return []
    where = f"$.budget.timeoutSecondsPerCall: {new!r} here, {old!r} when recorded"
    if old is None or (new is not None and new < old):
        return [f"{where} (a shorter timeout could have cut calls that finished)"]
    timed_out = sum(kind == "timeout" for r in records for call in r.calls for kind in call.failedAttempts)
    return [f"{where}, and {timed_out} recorded call attempt(s) timed out"] if timed_out else []


def _resolved(ref: ProtocolRef) -> tuple[str, dict[str, Any]]:
    """A protocol with its defaults filled in: spelling a default out changes nothing."""
    return ref.key, resolve(ref.id, ref.version, ref.options).resolved_options


def _group_differences(new: Plan, old: Plan) -> list[str]:
    out = []
    old_groups = {g.id: g for g in old.groups}
    new_ids = [g.id for g in new.groups]
    for i, group in enumerate(new.groups):
        recorded = old_groups.get(group.id)
        if recorded is None:
            out.append(f"$.groups[{i}] ({group.id}): not a group of the recorded run")
        elif _resolved(group.protocol) != _resolved(recorded.protocol):
            out.append(f"$.groups[{i}] ({group.id}).protocol: {group.protocol.key} {group.protocol.options} here, "
                       f"{recorded.protocol.key} {recorded.protocol.options} when recorded")
    out += [f"$.groups: the recorded group {g} is missing" for g in old_groups if g not in new_ids]
    return out


def _stage_differences(new: Plan, old: Plan) -> list[str]:
    out = []
    old_stages = {s.id: s for s in old.stages}
    new_ids = [s.id for s in new.stages]
    if [s for s in new_ids if s in old_stages] != [s for s in old_stages if s in new_ids]:
        out.append(f"$.stages: order {new_ids} here, {list(old_stages)} when recorded")
    for i, stage in enumerate(new.stages):
        recorded = old_stages.get(stage.id)
        where = f"$.stages[{i}] ({stage.id})"
        if recorded is None:
            out.append(f"{where}: not a stage of the recorded run")
            continue
        out += _fields(where, stage, recorded, ["repeats", "requires", "failFast", "sequential"])
        mine, theirs = [g.id for g in new.participants(stage)], [g.id for g in old.participants(recorded)]
        if mine != theirs:
            out.append(f"{where}: groups {mine} take part here, {theirs} when recorded")
        if len(stage.turns) != len(recorded.turns):
            out.append(f"{where}.turns: {len(stage.turns)} turn(s) here, {len(recorded.turns)} when recorded")
        for t, (turn, then) in enumerate(zip(stage.turns, recorded.turns, strict=False)):
            if turn.input != then.input:
                out.append(f"{where}.turns[{t}].input: {_short(turn.input)} here, {_short(then.input)} when "
                           "recorded: the recorded answers answer another question")
    out += [f"$.stages: the recorded stage {s} is missing" for s in old_stages if s not in new_ids]
    return out


def evidence_differences(plan: Plan, records: list[TrialRecord]) -> list[str]:
    """Recorded trials the plan cannot judge: unknown group or stage, or inputs other than its turns'."""
    out: list[str] = []
    groups, stages = {g.id for g in plan.groups}, {s.id: s for s in plan.stages}
    for r in records:
        if r.group not in groups or r.stage not in stages:
            out.append(f"trial {r.id}: group {r.group} / stage {r.stage} is not in this plan")
            continue
        inputs = [t.input for t in stages[r.stage].turns]
        for n, run in enumerate(r.runs):
            if n >= len(inputs) or run.input != inputs[n]:
                out.append(f"trial {r.id} turn {n + 1}: recorded input {_short(run.input)} is not this plan's")
                break
    return out[:20]
