"""The preflight from the body (P-80): which rules of the table a built provider body meets.

Each check reads the body as the provider's turns (``_turns``): the first turn's role, merged turns,
a trailing assistant / model turn, thinking, tool loops, signatures. The model name only picks
which model a rule concerns (``_rules``). The verdicts name the rule, its source and date.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._analysis import WireDifference, WireNote, WireTreatment, WireView, analyze_wire, wire_difference
from ._build import provider_of
from ._rereadings import rereadings
from ._routes import Route, chat_hits, route_of
from ._rules import (
    RULE_BY_ID,
    SEVERITY,
    TREATMENTS,
    Treatment,
    VerdictKind,
    claude_takes_prefill,
    claude_version,
    gemini_takes_trailing_model_turn,
    gemini_version,
)
from ._turns import Turn, WireFormat, turns, wire_format

_PLACEHOLDER_SIGNATURE = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="  # base64 "skip_thought_signature_validator"
_DERIVED = ("header", "state", "fold")


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: VerdictKind
    rule: str | None = Field(description="The rule's id in the table (null: no rule applies).")
    message: str
    source: str | None = None
    date: str | None = None
    turn: int | None = Field(None, description="0-based index of the turn the verdict concerns, when one does.")
    treatment: Treatment | None = Field(None, description="What the rule makes of the state message (own_message, "
                                        "merged, prefill, new_turn, rejected, unknown); null: the rule says nothing "
                                        "about it.")


def _verdict(rule_id: str, turn: int | None = None, detail: str = "") -> Verdict:
    rule = RULE_BY_ID[rule_id]
    message = rule.says + (f" ({detail})" if detail else "")
    return Verdict(kind=rule.kind, rule=rule.id, message=message, source=rule.source, date=rule.date, turn=turn,
                   treatment=rule.treatment)


class StateTreatment(BaseModel):
    """What a request's state message becomes on a route: the treatment, the rule that says so, in words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    treatment: Treatment | None = Field(description="null: the request carries no state message and is not rejected.")
    rule: str | None = Field(description="The rule that decides it (null: the body alone says it, or no rule).")
    detail: str = Field(description="merged: with what; rejected: the provider's error; otherwise what it means.")


def state_treatment(view: WireView | None, verdicts: list[Verdict]) -> StateTreatment:
    """The treatment of the request's state message, from the body's turns and the verdicts on them: a rejected
    request is ``rejected`` (detail: the provider's error); a rule on the state's own turn decides next (prefill,
    new turn, merged, own message, unknown); a state merged into another turn is ``merged`` (detail: with what).
    A state no rule speaks of is ``own_message`` on the Anthropic, Gemini and Bedrock formats (litellm's merge
    rule covers every turn) and ``unknown`` on any other format: the format says nothing about the provider."""
    refused = [v for v in verdicts if v.kind == "rejected"]
    if refused:
        first = refused[0]
        return StateTreatment(treatment="rejected", rule=first.rule, detail=provider_error(first.message))
    if view is None or view.state is None:
        return StateTreatment(treatment=None, rule=None, detail="the request carries no state message")
    state = view.state
    merged_with = f"into the {state.role} turn, with the {' and the '.join(state.mergedWith)}"
    about = [v for v in verdicts if v.treatment is not None and v.turn == state.turn]
    if about:
        top = max(about, key=lambda v: SEVERITY[v.kind])
        treatment = top.treatment
        assert treatment is not None
        detail = merged_with if treatment == "merged" and not state.alone else TREATMENTS[treatment]
        return StateTreatment(treatment=treatment, rule=top.rule, detail=detail)
    if not state.alone:
        return StateTreatment(treatment="merged", rule=None, detail=merged_with)
    if view.format in ("openai", "prompt"):
        return StateTreatment(treatment="unknown", rule=None, detail=TREATMENTS["unknown"])
    return StateTreatment(treatment="own_message", rule=None,
                          detail=f"a {state.role} turn of its own, {state.fromEnd} turn(s) from the end")


_ERROR = re.compile(r'(?:400|500) "([^"]+)"')


def provider_error(says: str) -> str:
    """The error text a rule quotes (``400 "..."``), else what the rule says."""
    match = _ERROR.search(says)
    return f"400 \"{match.group(1)}\"" if match else says


def compare_bodies(model: str, route: Route, group_id: str, control_id: str, control_body: dict[str, Any],
                   group_body: dict[str, Any], control_sent: list[dict[str, Any]] | None = None,
                   group_sent: list[dict[str, Any]] | None = None,
                   verdicts: tuple[list[Verdict] | None, list[Verdict] | None] = (None, None)) -> WireDifference:
    """``groupDifferences[].wire`` for one provider: both bodies as it receives them, what each side's state
    becomes by the route's rules (``verdicts``: a side's verdicts when the preflight has better ones, a local
    server's rendering), and litellm's re-readings that bear on what the group compares (``panel_notes``)."""
    views = analyze_wire(control_body), analyze_wire(group_body)
    found = [given if given is not None else preflight_body(model, body, route=route, sent=sent)
             for given, body, sent in zip(verdicts, (control_body, group_body), (control_sent, group_sent),
                                          strict=True)]
    treated = [WireTreatment(**state_treatment(view, v).model_dump()) for view, v in zip(views, found, strict=True)]
    return wire_difference(route.provider or route.name, model, group_id, control_id, control_body, group_body,
                           (treated[0], treated[1]), panel_notes(views[0], found[0], views[1], found[1]))


def panel_notes(control: WireView, control_verdicts: list[Verdict], group: WireView,
                group_verdicts: list[Verdict]) -> list[WireNote]:
    """The ``note`` verdicts that change what a group compares: one on either side's state message or on the
    system prompt (a system prompt sent as user: the sentinel compares prompts), or one side's only."""
    def notes(view: WireView, verdicts: list[Verdict]) -> dict[str, tuple[Verdict, bool]]:
        out: dict[str, tuple[Verdict, bool]] = {}
        for v in verdicts:
            if v.kind == "note" and v.rule:
                on = (view.state is not None and v.turn == view.state.turn) or v.rule in _SYSTEM_NOTES
                out[v.rule] = (v, on or out.get(v.rule, (v, False))[1])
        return out

    a, b = notes(control, control_verdicts), notes(group, group_verdicts)
    out = []
    for rule in dict.fromkeys([*a, *b]):
        side = "both" if rule in a and rule in b else "control" if rule in a else "group"
        bears = side != "both" or a[rule][1] or b[rule][1]
        if bears:
            verdict = (a.get(rule) or b[rule])[0]
            out.append(WireNote(rule=rule, side=side, message=verdict.message, source=verdict.source,
                                date=verdict.date))
    return out


_SYSTEM_NOTES = frozenset({"openai-o-series-system-as-user"})


def thinking_in(body: dict[str, Any]) -> bool:
    """Whether the body turns thinking on (Anthropic ``thinking``, Bedrock's inside additionalModelRequestFields)."""
    spec = body.get("thinking") or (body.get("additionalModelRequestFields") or {}).get("thinking")
    return isinstance(spec, dict) and spec.get("type") in ("enabled", "adaptive")


def preflight_body(model: str, body: dict[str, Any], thinking: bool = False, local: bool = False, *,
                   route: Route | None = None, sent: list[dict[str, Any]] | None = None) -> list[Verdict]:
    """Every rule of the table the body meets, in table order; one ``ok`` verdict when none does.
    ``route``: where the body goes (default: ``model``'s litellm provider, on its own URL, or on a loopback
    server with ``local``); on an OpenAI-format route its rules decide (``_routes``). ``sent``: the messages the
    harness handed litellm, to name litellm's re-readings of them (``_rereadings``, ``note`` verdicts)."""
    fmt = wire_format(body)
    seq = turns(body, fmt)
    thinking = thinking or thinking_in(body) or _chat_thinking(body)
    if route is None:
        route = route_of(model, provider_of(model), "http://127.0.0.1" if local else None)
    out: list[Verdict] = []
    if seq and fmt in ("anthropic", "bedrock_converse"):
        out += _claude_first(fmt, seq)
    out += _merges(fmt, seq)
    if fmt in ("anthropic", "bedrock_converse") and claude_version(model) is not None:
        out += _claude(model, fmt, body, seq, thinking)
    if fmt == "gemini":
        out += _gemini(model, body, seq)
    if fmt == "openai":
        out += [_verdict(rule, turn, detail) for rule, turn, detail in chat_hits(route, model, body, seq, thinking)]
    if fmt == "prompt" and seq:
        out.append(_verdict("ollama-generate-prompt", 0, model))
    if fmt == "bedrock_converse":
        out += [_verdict("bedrock-tool-result-text-mix", i) for i, t in enumerate(seq)
                if "tool result" in t.blocks and any(b != "tool result" for b in t.blocks)]
    if sent is not None:
        out += [_verdict(rule, turn, detail) for rule, turn, detail in rereadings(sent, body, route, model)]
    return out or [Verdict(kind="ok", rule=None, message="no rule of the table applies to this body")]


def _chat_thinking(body: dict[str, Any]) -> bool:
    """An OpenAI-format body that asks for thinking (DeepSeek's ``thinking``, a ``reasoning_effort`` but none)."""
    spec = body.get("thinking")
    effort = body.get("reasoning_effort")
    return (isinstance(spec, dict) and spec.get("type") == "enabled") or (effort not in (None, "none"))


def worst(verdicts: list[Verdict]) -> Verdict:
    """The verdict that decides whether the request can be sent (the most severe)."""
    return max(verdicts, key=lambda v: SEVERITY[v.kind])


def _claude_first(fmt: WireFormat, seq: list[Turn]) -> list[Verdict]:
    if seq[0].speaker != "assistant":
        return []
    what = " and ".join(dict.fromkeys(seq[0].blocks)) or "an empty turn"
    rule = "bedrock-first-message-user" if fmt == "bedrock_converse" else "anthropic-first-message-assistant"
    return [_verdict(rule, 0, f"the first turn is the {what}")]


def _merges(fmt: WireFormat, seq: list[Turn]) -> list[Verdict]:
    if fmt in ("openai", "prompt"):  # litellm merges nothing on chat routes; a rendered prompt has its own rule
        return []
    out = []
    for index, turn in enumerate(seq):
        kinds = list(dict.fromkeys(turn.blocks))
        if len(kinds) > 1 and any(b in _DERIVED for b in kinds):
            detail = f"turn {index} ({turn.role}) carries the {' and the '.join(kinds)}"
            out.append(_verdict("consecutive-roles-merged", index, detail))
    return out


def _claude(model: str, fmt: WireFormat, body: dict[str, Any], seq: list[Turn], thinking: bool) -> list[Verdict]:
    out: list[Verdict] = []
    last = len(seq) - 1
    if seq and seq[-1].speaker == "assistant":
        if thinking:
            out.append(_verdict("claude-thinking-no-prefill", last))
        elif claude_takes_prefill(model) is False:
            out.append(_verdict("claude-4.6-no-prefill", last, model))
        else:
            out.append(_verdict("claude-trailing-assistant-prefill", last, model))
    spec = body.get("thinking")
    if fmt == "anthropic" and isinstance(spec, dict) and spec.get("type") == "enabled":
        budget, cap = spec.get("budget_tokens"), body.get("max_tokens")
        if isinstance(budget, int) and isinstance(cap, int) and cap <= budget:
            out.append(_verdict("claude-thinking-budget-below-max-tokens", None,
                                f"max_tokens {cap}, budget_tokens {budget}"))
    if thinking:
        loop = _open_tool_turn(seq)
        if loop is not None and seq[loop].blocks[:1] != ("thinking",):
            out.append(_verdict("claude-thinking-tool-turn", loop))
    return out


def _open_tool_turn(seq: list[Turn]) -> int | None:
    """The last assistant turn, when it made tool calls and every turn after it carries tool results (a loop in
    progress, even where litellm merged user text into the results' turn, as C's state)."""
    for index in range(len(seq) - 1, -1, -1):
        turn = seq[index]
        if turn.speaker == "assistant":
            return index if "tool call" in turn.blocks else None
        if "tool result" not in turn.blocks:
            return None  # a user turn without tool results: a new user turn, not the loop's
    return None


def _gemini(model: str, body: dict[str, Any], seq: list[Turn]) -> list[Verdict]:
    out: list[Verdict] = []
    if seq and seq[-1].speaker == "assistant":
        takes = gemini_takes_trailing_model_turn(model)
        rule = ("gemini-trailing-model-unknown" if takes is None
                else "gemini-trailing-model-prefill" if takes else "gemini-trailing-model-rejected")
        out.append(_verdict(rule, len(seq) - 1, model))
    out += [_verdict("gemini-function-response-text-mix", i) for i, t in enumerate(seq)
            if "tool result" in t.blocks and any(b not in ("tool result",) for b in t.blocks)]
    out += [_verdict("gemini-user-content-after-function-response", i) for i in range(1, len(seq))
            if seq[i].speaker == "user" and "tool result" not in seq[i].blocks and seq[i].blocks
            and "tool result" in seq[i - 1].blocks]
    version = gemini_version(model)
    if version is not None and version[0] >= 3:
        for index, content in enumerate(c for c in body.get("contents") or [] if isinstance(c, dict)):
            parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
            if any(p.get("thoughtSignature") == _PLACEHOLDER_SIGNATURE for p in parts):
                out.append(_verdict("gemini-3-signature-placeholder", index))
    return out
