"""Required checks a plan makes impossible to exercise (the check table of 03-experiments.md, X-44, P-50).

A required check whose precondition never occurs ends ``not_exercised`` and fails its trial
(docs/evidence.md). ``compression_readback`` needs a compression that covers a fold. Under the
unified protocols a compression runs either because the agent calls ``context_compress`` (offered only
when ``agent.contextMaintainer`` binds it to the host's context maintainer) or because a step's input
reaches ``maintenance.thresholdTokens``. Unbound, the threshold is the only way, and this module
estimates whether a stage's conversation can reach it, with the token counter the dry run uses
(litellm's): the stage's first request (system prompt, tools, header, state, first input) for each
group, plus the later turns' inputs, plus per step the output cap and 200 tokens of tool result (the
dry run's allowance), for the steps a passing trial needs (the tool calls its turn checks require,
and one answer per turn). It also gives the request at the step cap (every step of every turn at the
output cap): the worst case, which a trial that answers in a few steps does not approach.
"""

from __future__ import annotations

from typing import NamedTuple

from harness.plan import Plan, StageSpec, ToolCalled

from ._design_models import DesignFinding

TOOL_RESULT_TOKENS = 200
"""Tokens allowed per step for a tool result (the dry run's cost estimate uses the same)."""
CHECK = "compression_readback"


class RequestEstimate(NamedTuple):
    first: int
    """Tokens of the stage's first request, as the dry run counts them."""
    steps: int
    """Steps a passing trial needs: required tool calls plus one answer per turn."""
    expected: int
    """The largest request of a trial that takes ``steps`` steps, each at the output cap."""
    at_step_cap: int
    """The largest request if every step of every turn ran at the output cap."""


def _first_request(plan: Plan, stage: StageSpec, group_id: str) -> int:
    from harness.business_tools import BusinessTools
    from harness.engine import count_messages
    from protocols import FrozenView, MessageDraft, new_run_id, resolve
    from protocols.store import MemoryStore

    ref = plan.group(group_id).protocol
    protocol = resolve(ref.id, ref.version, ref.options)
    store, run_id = MemoryStore(), new_run_id()
    store.create_session("design", {"activeWindow": "main"})
    store.append("design", MessageDraft(run_id=run_id, window_id="main", role="user", kind="input",
                                        content=stage.turns[0].input, input_run=run_id))
    tools = BusinessTools({k: v.model_dump() for k, v in plan.agent.projects.items()}).schemas()
    projected = protocol.project(store, "design", FrozenView(revision=0, upper_bound=1, run_id=run_id),
                                 plan.agent.config(), None, tools)
    return count_messages(plan.models.agent, projected.messages, projected.tools)


def estimate_requests(plan: Plan, stage: StageSpec, group_id: str) -> RequestEstimate:
    """How large a trial's requests in ``stage`` may grow for ``group_id`` (litellm's counter)."""
    from harness.engine import count_messages

    first = _first_request(plan, stage, group_id)
    inputs = sum(count_messages(plan.models.agent, [{"role": "user", "content": t.input}]) for t in stage.turns[1:])
    per_step = (plan.budget.maxOutputTokensPerCall or 1024) + TOOL_RESULT_TOKENS
    steps = sum(1 + sum(c.min for c in t.checks if isinstance(c, ToolCalled)) for t in stage.turns)
    cap = len(stage.turns) * (plan.budget.maxStepsPerRun or 12)
    return RequestEstimate(first, steps, first + inputs + steps * per_step, first + inputs + cap * per_step)


def _required(stage: StageSpec) -> bool:
    return any(c.name == CHECK and getattr(c, "required", True) for c in stage.trialChecks)


def unexercisable_checks(plan: Plan) -> list[DesignFinding]:
    """``compression_readback`` required in a stage whose unified groups can never compress: the agent is
    not bound to the maintainer and the threshold is off or, by the estimate, out of reach."""
    if plan.agent.contextMaintainer:
        return []
    from protocols import resolve

    out = []
    threshold = plan.maintenance.thresholdTokens
    for stage in plan.stages:
        if not _required(stage):
            continue
        groups = [g.id for g in plan.participants(stage)
                  if resolve(g.protocol.id, g.protocol.version, g.protocol.options).has_folds]
        if not groups:
            continue  # prefix@2 has no folds: the check is not applicable there, never not exercised
        head = (f"{CHECK} is required in {stage.id}, but the agent is not bound to the context maintainer "
                "(agent.contextMaintainer false), so context_compress is not offered and only the token threshold "
                "can compress")
        fixes = ["bind agent.contextMaintainer (true)", f"mark {CHECK} \"required\": false in {stage.id}"]
        if threshold is None:
            why = "; maintenance.thresholdTokens is null: no compression can run"
            fixes.insert(1, "set maintenance.thresholdTokens")
        else:
            estimates = {g: estimate_requests(plan, stage, g) for g in groups}
            reachable = [g for g, e in estimates.items() if e.expected >= threshold]
            if reachable == groups:
                continue
            e = max((estimates[g] for g in groups if g not in reachable), key=lambda x: x.expected)
            why = (f"; its largest request is estimated at about {e.expected:,} tokens (litellm's counter, as the dry "
                   f"run counts: a first request of {e.first:,}, the later inputs and {e.steps} steps at the output "
                   f"cap plus {TOOL_RESULT_TOKENS} tokens of tool result), below maintenance.thresholdTokens "
                   f"{threshold:,}" + (f"; only a trial that ran every step of every turn at the output cap would "
                                       f"reach it (about {e.at_step_cap:,})" if e.at_step_cap >= threshold else
                                       f"; even every step at the output cap stays below it ({e.at_step_cap:,})"))
            fixes.insert(1, f"lower maintenance.thresholdTokens below about {e.expected:,}")
            groups = [g for g in groups if g not in reachable]
        out.append(DesignFinding(
            kind="not-exercisable", problem=True, stage=stage.id, groups=groups, check=CHECK,
            statement=f"{head}{why}. Every trial of {', '.join(groups)} would fail as not_exercised.",
            fix="; or ".join(fixes) + "."))
    return out
