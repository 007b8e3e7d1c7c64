"""What a provider body does to the harness's messages: turns, the state message, prefill.

Pure functions over a body (``_turns``). litellm merges consecutive same-role messages for
Anthropic, Gemini and Bedrock, so the ``context_state`` message (P-71) the harness places as a
message of its own may reach the model as part of another turn: B's state as a second text block
of the header's assistant turn, C's as part of the user's turn (source: shared notes, providers.md).
:class:`WireView` says what the provider receives; field names are camelCase like report.json's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ._turns import Turn, WireFormat, turns, wire_format


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WireTurn(_Model):
    role: str = Field(description="The provider's role word (Gemini: user / model).")
    blocks: list[str] = Field(description="What the turn is made of, by origin: header, state, fold, user input, "
                                          "assistant text, tool call, tool result, thinking, other.")


class WireState(_Model):
    turn: int = Field(description="0-based index of the turn that carries the context_state text.")
    fromEnd: int = Field(description="How many turns follow that turn (0: the last turn).")
    role: str = Field(description="The provider role of that turn.")
    speaker: str = Field(description="user or assistant, the same word on every provider.")
    alone: bool = Field(description="True when the state is a turn of its own; False when merged into another.")
    mergedWith: list[str] = Field(description="What else its turn carries (header, user input, tool result, ...).")


class WireView(_Model):
    format: WireFormat
    turns: list[WireTurn]
    firstRole: str | None = Field(description="The provider role of the first turn (null: no turns).")
    lastRole: str | None
    endsWithAssistant: bool = Field(description="The request ends with an assistant / model turn: the provider "
                                                "reads it as a prefill, or rejects it.")
    state: WireState | None = Field(description="null: the body carries no context_state text.")

    @property
    def roles(self) -> list[str]:
        return [t.role for t in self.turns]


def analyze_wire(body: dict[str, object], fmt: WireFormat | None = None) -> WireView:
    """The provider's view of one request body."""
    fmt = fmt or wire_format(body)
    seq = turns(body, fmt)
    return WireView(
        format=fmt,
        turns=[WireTurn(role=t.role, blocks=list(t.blocks)) for t in seq],
        firstRole=seq[0].role if seq else None,
        lastRole=seq[-1].role if seq else None,
        endsWithAssistant=bool(seq) and seq[-1].speaker == "assistant",
        state=_state(seq),
    )


def _state(seq: list[Turn]) -> WireState | None:
    for index in range(len(seq) - 1, -1, -1):
        turn = seq[index]
        if "state" in turn.blocks:
            others = list(dict.fromkeys(b for b in turn.blocks if b != "state"))
            return WireState(turn=index, fromEnd=len(seq) - 1 - index, role=turn.role, speaker=turn.speaker,
                             alone=not others, mergedWith=others)
    return None


def state_place(view: WireView) -> str:
    """Where the state is, in words: "stays a turn of its own (assistant)", "is merged into the user's turn"."""
    state = view.state
    if state is None:
        return "has no state message"
    if state.alone:
        return f"stays a turn of its own ({state.role})"
    if "user input" in state.mergedWith:
        return "is merged into the user's turn"
    if "header" in state.mergedWith:
        return f"is merged into the header's {state.role} turn"
    if "tool result" in state.mergedWith:
        return "is merged into the tool result's turn"
    return f"is merged into a {state.role} turn with the {' and the '.join(state.mergedWith)}"


def _joined(state: WireState) -> str:
    return " and ".join(state.mergedWith) if state.mergedWith else "nothing"


class WireNote(_Model):
    """A ``note`` rule one side's body meets (litellm re-reading a message) that bears on what the group compares:
    on the state message, on the system prompt, or on one side only."""

    rule: str
    side: str = Field(description="control, group or both.")
    message: str
    source: str | None = None
    date: str | None = None


class WireTreatment(_Model):
    """What a side's state message becomes on this route (``harness.wire.StateTreatment``, as report.json keeps it)."""

    treatment: str | None = Field(description="own_message, merged, prefill, new_turn, rejected, unknown; null: no "
                                              "state message.")
    rule: str | None = None
    detail: str = ""


def wire_differs_in(control: WireView, group: WireView, treatments: tuple[str | None, str | None] | None = None
                    ) -> list[str]:
    """What the two bodies differ in as the provider receives them: ``stateMessage`` (present on one
    side only), ``stateRole``, ``statePosition`` (counted in turns from the end), ``stateMerge``
    (alone vs merged, or merged with other things), ``prefill``, ``firstRole``. ``treatments`` (the two states'
    treatments, when the route's rules know them): ``prefill`` is then whether exactly one side is a prefill
    (a trailing assistant message the route reads as a new turn is no prefill); without them, whether exactly
    one request ends with an assistant turn."""
    a, b = control.state, group.state
    if treatments is not None and None not in treatments and "unknown" not in treatments:
        prefill = (treatments[0] == "prefill") != (treatments[1] == "prefill")
    else:
        prefill = control.endsWithAssistant != group.endsWithAssistant
    found = {
        "stateMessage": (a is None) != (b is None),
        "stateRole": bool(a and b and a.speaker != b.speaker),
        "statePosition": bool(a and b and a.fromEnd != b.fromEnd),
        "stateMerge": bool(a and b and (a.alone, a.mergedWith) != (b.alone, b.mergedWith)),
        "prefill": prefill,
        "firstRole": control.firstRole != group.firstRole,
    }
    return [name for name, hit in found.items() if hit]


def wire_summary(provider: str, group_id: str, control_id: str, control: WireView, group: WireView,
                 treatments: tuple[WireTreatment, WireTreatment] | None = None, notes: list[WireNote] | None = None
                 ) -> str:
    """One sentence: where the group's state is on ``provider``'s wire and what that makes it differ in; with
    ``treatments``, what each side's state becomes and by which rule; with ``notes``, litellm's re-readings."""
    head = (f"on {provider}, {group_id} has no state message" if group.state is None
            else f"on {provider}, {group_id}'s state {state_place(group)}")
    kinds = None if treatments is None else (treatments[0].treatment, treatments[1].treatment)
    differs = wire_differs_in(control, group, kinds)
    a, b = control.state, group.state
    parts: list[str] = []
    if "stateRole" in differs and b is not None:
        parts.append("role")
    if "statePosition" in differs:
        parts.append("position")
    if "stateMerge" in differs and a is not None and b is not None:
        if not b.alone and a.alone:
            parts.append(f"becoming part of the {_joined(b)}")
        elif b.alone:
            parts.append("staying a turn of its own")
        else:
            parts.append(f"being merged with the {_joined(b)} instead of the {_joined(a)}")
    if "stateMessage" in differs:
        parts.append("having a state message" if b is not None else "having none")
    if "prefill" in differs and treatments is not None:
        parts.append("being a prefill" if kinds and kinds[1] == "prefill" else "not being a prefill")
    if parts:
        sentence = f"{head}: {group_id} differs from {control_id} in " + " and in ".join(parts)
    else:
        sentence = f"{head}: on the wire, {group_id} and {control_id} place it alike"
    if treatments is not None:
        said = [f"{who}'s state: {t.treatment}" + (f" [{t.rule}]" if t.rule else "")
                for who, t in ((control_id, treatments[0]), (group_id, treatments[1])) if t.treatment]
        if said:
            sentence += "; " + "; ".join(said)
    else:
        endings = []
        for who, view in ((control_id, control), (group_id, group)):
            if view.endsWithAssistant:
                article = "an" if str(view.lastRole)[:1] in "aeiou" else "a"
                endings.append(f"{who}'s request ends with {article} {view.lastRole} turn, which the provider reads "
                               "as a prefill or a finished message, or rejects")
        if endings:
            sentence += "; " + "; ".join(endings)
    for note in notes or []:
        sentence += f"; note ({note.side}): {note.message} [{note.rule}]"
    return sentence + "."


class WireDifference(_Model):
    """One provider's entry of ``groupDifferences[].wire``: both bodies as the provider receives them."""

    provider: str
    model: str
    control: WireView
    group: WireView
    differsIn: list[str] = Field(description="stateMessage, stateRole, statePosition, stateMerge, prefill, firstRole.")
    summary: str
    controlTreatment: WireTreatment | None = Field(None, description="What the control's state becomes on this "
                                                                     "route, by which rule (null: not read).")
    groupTreatment: WireTreatment | None = Field(None, description="What the group's state becomes on this route.")
    notes: list[WireNote] = Field(default_factory=list, description="litellm's re-readings that bear on what the "
                                                                    "group compares (note rules).")


def wire_difference(provider: str, model: str, group_id: str, control_id: str,
                    control_body: dict[str, object], group_body: dict[str, object],
                    treatments: tuple[WireTreatment, WireTreatment] | None = None,
                    notes: list[WireNote] | None = None) -> WireDifference:
    control, group = analyze_wire(control_body), analyze_wire(group_body)
    kinds = None if treatments is None else (treatments[0].treatment, treatments[1].treatment)
    return WireDifference(provider=provider, model=model, control=control, group=group,
                          differsIn=wire_differs_in(control, group, kinds),
                          summary=wire_summary(provider, group_id, control_id, control, group, treatments, notes),
                          controlTreatment=None if treatments is None else treatments[0],
                          groupTreatment=None if treatments is None else treatments[1], notes=list(notes or []))
