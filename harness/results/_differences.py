"""The difference panel of report.json: what a group's requests differ in from the control's.

A controlled comparison is only controlled if its groups differ where the plan says. For each group
against the placement control, on the first request of the first stage both ran: the system prompt
word by word, the tools whose schema differs, both role sequences, where the state message sits and
in which role, how the state text differs, and which other messages differ at all; and, computed
from those, what the group differs in against what the design lets it differ in.

The words (``summarize``, the panel's summary line) are computed from the two recorded requests and
set against what the design lets the group differ in, with the source's words for each difference.

The design (source, unified@3): B changes only the state message's position ("B（只改位置）"), C only
its role ("C（只改角色）"). The sentinel v2 is the original mapping, and unified@3 changed two things
against it that A, B and C share: it removed v2's positional qualifiers from the prompt ("移除了 v2 中
“最后的/末尾状态”和“以上是历史记录”的位置限定") and its state text says that no role carrying it grants
user authority ("C 的 user 角色也不构成用户的新授权"). So v2 differs from A in the prompt words *and*
in the state text. The control v1 and the prefix@2 baseline are other protocols: no single-variable
design, their differences are listed only.

The requests (``group_differences``): each group is compared with the placement control on the
first agent request of the first stage (in plan order) both ran, taking each side's first trial that
made a request. Requests come from the run's session store (the snapshots the engine wrote); a group
whose requests the run did not send (the preflight found the provider rejects them, P-80) is
compared on its first request built offline, as the runner would have sent it.

The wire (``wire``): what the provider of the run's model receives of both requests (E-11): the
body each snapshot captured (``providerRequest``), or the body litellm builds offline where the call
was not made or failed. litellm merges consecutive same-role messages for Anthropic, Gemini and
Bedrock, so a group designed to differ in one thing may differ in more on the wire: C's user state
becomes part of the user's own turn, B's joins the header's turn, A's is a prefill. The summary says
so in words and does not call such a comparison "as designed".

A rescore (``restate``) has no session store of its own: it keeps the recording's requests as they were
compared (word diffs, roles, state places, tools, the wire views, treatments and notes: facts of the run)
and says them again in today's words, with the rescoring plan's findings roles: what each request and
wire differs in, the wire sentences, the design line and its verdict.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from harness.business_tools import BusinessTools
from harness.models import ModelRequest
from harness.plan import GroupSpec, StageSpec
from harness.preflight import first_request
from harness.wire import (
    Verdict,
    WireBuildError,
    WireDifference,
    compare_bodies,
    provider_of,
    request_wire_body,
    route_of,
    wire_differs_in,
    wire_summary,
)
from protocols import STATE_VIEW_V3, HostOptions, resolve

from ._panel import GroupDifference, RolePair, StateDifference, StatePlace, WordChange
from ._records import TrialRecord
from ._run_view import RunView


def word_diff(control: str, group: str) -> list[WordChange]:
    """The words that differ between two texts (whitespace-separated words; empty when identical)."""
    a, b = control.split(), group.split()
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [WordChange(op=op, control=" ".join(a[i1:i2]), group=" ".join(b[j1:j2]))
            for op, i1, i2, j1, j2 in ops if op != "equal"]


ASPECTS: tuple[str, ...] = ("systemPrompt", "tools", "messageRoles", "stateMessage", "statePosition", "stateRole",
                            "stateText", "otherMessages")
"""What two requests can differ in, in the order the summary names them."""
_WORDS = {"systemPrompt": "system prompt", "tools": "tools", "messageRoles": "roles of the other messages",
          "stateMessage": "presence of a state message", "statePosition": "state message's position",
          "stateRole": "state message's role", "stateText": "state text", "otherMessages": "other messages"}
DESIGN: dict[str, tuple[tuple[str, ...], str]] = {
    "positionGroup": (("statePosition",), "the position group, which the source changes only in the state "
                                          "message's position (“B（只改位置）”)"),
    "roleGroup": (("stateRole",), "the role group, which the source changes only in its role (“C（只改角色）”)"),
    "sentinelGroup": (("systemPrompt", "stateText"),
                      "the sentinel, the original unified@2 mapping: unified@3 removed v2's positional "
                      "qualifiers from the prompt (“移除了 v2 中‘最后的/末尾状态’和‘以上是历史记录’的位置限定”) and "
                      "its state text says no role carrying it grants user authority "
                      "(“C 的 user 角色也不构成用户的新授权”)"),
}
"""findings role → (the aspects the design lets the group differ in from the placement control, why)."""
NO_DESIGN = {"controlGroup": "the sentinel control, another protocol (unified@1, no state message)",
             "baselineGroup": "the baseline, another protocol (prefix@2)"}
_SHOWN = 3
WIRE_DESIGN: dict[str, tuple[str, ...]] = {"positionGroup": ("statePosition",), "roleGroup": ("stateRole",),
                                           "sentinelGroup": ()}
"""findings role → what the design lets the group differ in on the wire (``harness.wire.wire_differs_in``)."""
_WIRE_WORDS = {"stateMessage": "having a state message", "stateRole": "the state's role",
               "statePosition": "the state's position (in turns)",
               "stateMerge": "where the state is merged (a turn of its own or part of another)",
               "prefill": "whether the request is a prefill", "firstRole": "the first turn's role"}


def findings_role(spec: Any, group: str) -> str | None:
    """The group's findings role (``roleGroup``, ``positionGroup`` …) in the plan's findings spec; None: none."""
    return next((role for role in ("baselineGroup", "controlGroup", "sentinelGroup", "roleGroup", "positionGroup")
                 if getattr(spec, role) == group), None)


def wire_beyond(role: str | None, wire: WireDifference) -> list[str]:
    """What the two requests differ in on the wire beyond what the design lets the group differ in
    (empty for a group without a single-variable design: its differences are listed only)."""
    if role not in WIRE_DESIGN:
        return []
    return [a for a in wire.differsIn if a not in WIRE_DESIGN[role]]


def _roles_besides_state(roles: list[str], position: int | None) -> list[str]:
    return [r for i, r in enumerate(roles) if i != position]


def differs_in(d: GroupDifference) -> list[str]:
    """The aspects in which the two recorded requests differ, in ``ASPECTS`` order."""
    s = d.stateMessage
    found = {
        "systemPrompt": bool(d.systemPrompt),
        "tools": bool(d.tools),
        "messageRoles": _roles_besides_state(d.messageRoles.control, s.control.position if s.control else None)
        != _roles_besides_state(d.messageRoles.group, s.group.position if s.group else None),
        "stateMessage": (s.control is None) != (s.group is None),
        "statePosition": bool(s.control and s.group and s.control.position != s.group.position),
        "stateRole": bool(s.control and s.group and s.control.role != s.group.role),
        "stateText": bool(s.text),
        "otherMessages": bool(d.otherMessages),
    }
    return [a for a in ASPECTS if found[a]]


@cache
def _v3_prompt_removals() -> tuple[tuple[tuple[str, str, str], ...], ...]:
    """The word changes from unified@3's prompt to unified@2's (with and without a bound maintainer):
    the positional qualifiers the source says v3 removed."""
    out = []
    for bound in (False, True):
        v3 = resolve("unified", 3, {}).prompt(maintainer_bound=bound)
        v2 = resolve("unified", 2, {}).prompt(maintainer_bound=bound)
        out.append(tuple((c.op, c.control, c.group) for c in word_diff(v3, v2)))
    return tuple(out)


def _changes(changes: list[WordChange]) -> str:
    n = len(changes)
    head = f"{n} word change{'' if n == 1 else 's'}"
    if n > _SHOWN:
        return head
    signs = [" ".join(([f"−“{c.control}”"] if c.control else []) + ([f"+“{c.group}”"] if c.group else []))
             for c in changes]
    return f"{head}: {', '.join(signs)}"


def _aspect_text(aspect: str, d: GroupDifference) -> str:
    s = d.stateMessage
    if aspect == "systemPrompt":
        known = tuple((c.op, c.control, c.group) for c in d.systemPrompt) in _v3_prompt_removals()
        return (f"the system prompt ({_changes(d.systemPrompt)}"
                + (": exactly the positional qualifiers unified@3 removed from unified@2's prompt)" if known else ")"))
    if aspect == "tools":
        described = [t for t in d.tools if t not in d.toolsOneSided]
        parts = ([f"the tools offered ({', '.join(d.toolsOneSided)} offered by one side only)"]
                 if d.toolsOneSided else [])
        parts += ([f"the definitions of tools both offer ({', '.join(described)}: same names, other schemas or "
                   "descriptions)"] if described else [])
        return "; ".join(parts)
    if aspect == "stateMessage":
        return f"the state message ({(d.control if s.control is None else d.group) + ' has none'})"
    if aspect == "statePosition":
        assert s.control and s.group
        return f"the state message's position (#{s.control.position} → #{s.group.position})"
    if aspect == "stateRole":
        assert s.control and s.group
        return f"the state message's role ({s.control.role} → {s.group.role})"
    if aspect == "stateText":
        view = STATE_VIEW_V3.strip()
        if [(c.op, c.control, c.group) for c in s.text] == [("delete", view, "")]:
            return (f"the state text ({d.control}'s carries unified@3's sentence “{view}”, which {d.group}'s lacks; "
                    "the source gives it to unified@3: “C 的 user 角色也不构成用户的新授权”)")
        return f"the state text ({_changes(s.text)})"
    if aspect == "messageRoles":
        return "the roles of the messages other than the state message"
    return f"other messages ({'; '.join(d.otherMessages)})"


def summarize(d: GroupDifference, role: str | None) -> GroupDifference:
    """``d`` with ``differsIn``, ``expected`` and ``summary`` filled in; ``role``: the group's findings role
    (``positionGroup``, ``sentinelGroup`` …), None when it has none. The wire (``d.wire``) is said in words
    after the requests; a difference on the wire beyond the design makes the comparison not as designed."""
    found = differs_in(d)
    one_sided = "stateMessage" in found  # no state message on one side: its position, role, text are not compared
    state = ("stateMessage", "statePosition", "stateRole", "stateText") if one_sided else ("stateMessage",)
    same = [_WORDS[a] for a in ASPECTS if a not in found and a not in state]
    head = (f"{d.group} differs from {d.control} in " + "; ".join(_aspect_text(a, d) for a in found)
            if found else f"{d.group} is identical to {d.control} in everything compared")
    if found and same:
        head += f"; identical: {', '.join(same)}"
    expected: list[str] | None = None
    off = [f"on {w.provider}'s wire it also differs in {', '.join(_WIRE_WORDS[a] for a in beyond)}"
           for w in d.wire if (beyond := wire_beyond(role, w))]
    if role in DESIGN:
        aspects, why = DESIGN[role]
        expected = list(aspects)
        beyond = [_WORDS[a] for a in found if a not in aspects]
        missing = [_WORDS[a] for a in aspects if a not in found]
        problems = (([f"differs beyond the design in the {', '.join(beyond)}"] if beyond else [])
                    + ([f"identical where the design expects a difference: {', '.join(missing)}"] if missing else []))
        if problems:
            verdict = "Not as designed: " + "; ".join(problems + off)
        elif off:
            verdict = "As designed in the messages the harness builds, not on the wire: " + "; ".join(off)
        else:
            verdict = "As designed"
        tail = f"Design: {d.group} is {why}. {verdict}."
    else:
        tail = (f"Design: {d.group} is {NO_DESIGN[role]}, not a single-variable comparison with {d.control}."
                if role in NO_DESIGN else f"{d.group} has no part in the findings design: differences listed only.")
    wire = " ".join(f"On the wire, {w.summary}" for w in d.wire)
    summary = " ".join(part for part in (f"{head}.", wire, tail) if part)
    return d.model_copy(update={"differsIn": found, "expected": expected, "summary": summary})


def _restated_wire(w: WireDifference, group: str, control: str) -> WireDifference:
    """A recorded wire entry with its ``differsIn`` and ``summary`` derived again from its views, treatments
    (none in reports written before they were read) and notes."""
    treated = None if w.controlTreatment is None or w.groupTreatment is None else (w.controlTreatment,
                                                                                   w.groupTreatment)
    kinds = None if treated is None else (treated[0].treatment, treated[1].treatment)
    return w.model_copy(update={"differsIn": wire_differs_in(w.control, w.group, kinds),
                                "summary": wire_summary(w.provider, group, control, w.control, w.group, treated,
                                                        w.notes)})


def restate(panel: Sequence[GroupDifference], spec: Any) -> list[GroupDifference]:
    """A recorded panel in today's words (see the module docstring); ``spec``: the findings spec whose roles
    the design lines follow (none for an entry compared with a group that is not its placement control). The
    compared requests stay as recorded."""
    return [summarize(d.model_copy(update={"wire": [_restated_wire(w, d.group, d.control) for w in d.wire]}),
                      findings_role(spec, d.group) if d.control == spec.placementControl else None)
            for d in panel]


def _first_request(exp: RunView, records: list[TrialRecord]) -> dict[str, Any] | None:
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


def _tool_defs(snap: dict[str, Any]) -> dict[str, str]:
    return {str(t.get("function", t).get("name")): json.dumps(t, sort_keys=True, ensure_ascii=False)
            for t in snap["request"].get("tools") or []}


def _one_sided(control: dict[str, Any], group: dict[str, Any]) -> list[str]:
    a, b = _tool_defs(control), _tool_defs(group)
    return sorted(a.keys() ^ b.keys())


def _tools(control: dict[str, Any], group: dict[str, Any]) -> list[str]:
    a, b = _tool_defs(control), _tool_defs(group)
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
        out.append(f"the placement control has {len(a)} messages besides system and state, the group {len(b)}")
    return out


def _offline(exp: RunView, group: GroupSpec, stage: StageSpec) -> dict[str, Any]:
    """The group's first request of ``stage`` built without a call, shaped like an engine snapshot."""
    plan = exp.plan
    protocol = resolve(group.protocol.id, group.protocol.version, group.protocol.options)
    tools = BusinessTools({k: v.model_dump() for k, v in plan.agent.projects.items()}).schemas()
    projected = first_request(protocol, plan.agent.config(), stage.turns[0].input,
                              HostOptions(maintenance=plan.maintenance), tools)
    sampling = plan.models.sampling
    params = {"max_tokens": plan.budget.maxOutputTokensPerCall, "temperature": sampling.temperature,
              "top_p": sampling.topP, "seed": sampling.seed}
    return {"id": f"offline:{group.id}/{stage.id}", "sources": [s.wire() for s in projected.sources],
            "request": {"messages": projected.messages, "tools": projected.tools, "params": params}}


def _body(exp: RunView, snap: dict[str, Any]) -> dict[str, Any] | None:
    """The provider body of a snapshot: the one the call sent, else the one litellm builds offline."""
    sent = snap.get("providerRequest")
    if isinstance(sent, dict):
        return sent
    request, params = snap["request"], snap["request"].get("params") or {}
    try:
        return request_wire_body(exp.settings.agent_model, ModelRequest(
            messages=request["messages"], tools=request.get("tools") or [], max_output_tokens=params.get("max_tokens"),
            temperature=params.get("temperature"), top_p=params.get("top_p"), seed=params.get("seed")),
            exp.settings.api_base)
    except (WireBuildError, ValueError):
        return None


def _wire(exp: RunView, group: str, control: str, base: dict[str, Any], snap: dict[str, Any],
          rendered: dict[str, list[Verdict]]) -> list[WireDifference]:
    """One entry for the run's agent model (none for a scripted model: no provider receives its requests): both
    bodies, each state's treatment by the route's rules (a local server's own rendering, from the preflight,
    where it answered), and litellm's re-readings that bear on the comparison."""
    model = exp.settings.agent_model
    if model.startswith("scripted/"):
        return []
    a, b = _body(exp, base), _body(exp, snap)
    if a is None or b is None:
        return []
    route = route_of(model, provider_of(model), exp.settings.api_base)
    return [compare_bodies(model, route, group, control, a, b, base["request"]["messages"],
                           snap["request"]["messages"], (rendered.get(control), rendered.get(group)))]


def group_differences(exp: RunView, preflight: list[dict[str, Any]] | None = None) -> list[GroupDifference]:
    """One entry per selected group other than the placement control (none without a control). Without a
    store (a rescore): the recorded panel the experiment carries as ``recorded_panel``, restated (``restate``).
    ``preflight``: the run's preflight entries; a group it did not send is compared on its offline request."""
    spec = exp.plan.findings
    control = spec.placementControl
    if exp.store is None:  # a rescore has no store: the recording's panel (``recorded_panel``), restated
        return restate(getattr(exp, "recorded_panel", ()), spec)
    held = {str(p["group"]) for p in preflight or [] if not p.get("sent", True)}
    rendered = {str(p["group"]): [Verdict.model_validate(v) for v in p.get("verdicts") or []]
                for p in preflight or [] if p.get("rendered")}  # a local server's own reading of the request
    specs = {g.id: g for g in exp.plan.groups}

    def request(group_id: str, stage: StageSpec) -> dict[str, Any] | None:
        found = _first_request(exp, exp.stage_records(group_id, stage.id))
        chosen = exp.settings.stages is None or stage.id in exp.settings.stages
        if found is None and group_id in held and chosen and any(g.id == group_id
                                                                 for g in exp.plan.participants(stage)):
            return _offline(exp, specs[group_id], stage)
        return found

    out = []
    for group in exp.selected_groups():
        if group.id == control:
            continue
        for stage in exp.plan.stages:
            snap, base = request(group.id, stage), request(control, stage)
            if snap is None or base is None:
                continue
            (cs, ctext), (gs, gtext) = _state(base), _state(snap)
            out.append(summarize(GroupDifference(
                group=group.id, control=control, stage=stage.id, groupRequest=str(snap.get("id")),
                controlRequest=str(base.get("id")), systemPrompt=word_diff(_system(base), _system(snap)),
                tools=_tools(base, snap), toolsOneSided=_one_sided(base, snap),
                messageRoles=RolePair(control=[str(m.get("role")) for m in base["request"]["messages"]],
                                      group=[str(m.get("role")) for m in snap["request"]["messages"]]),
                stateMessage=StateDifference(control=cs, group=gs,
                                             text=word_diff(ctext, gtext) if cs and gs else []),
                otherMessages=_others(base, snap), wire=_wire(exp, group.id, control, base, snap, rendered)),
                findings_role(spec, group.id)))
            break
    return out
