"""The preflight from the body (P-80): which rules of the table a built provider body meets.

Each check reads the body as the provider's turns (``_turns``): the first turn's role, merged turns,
a trailing assistant / model turn, thinking, tool loops, signatures. The model name only picks
which model a rule concerns (``_rules``). The verdicts name the rule, its source and date.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._analysis import WireView
from ._rules import (
    RULE_BY_ID,
    SEVERITY,
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
    request is ``rejected`` (its rule's error); a rule on the state's own turn decides next (prefill, new turn,
    unknown); else the state is ``merged`` into another turn or its ``own_message``. On the OpenAI format a state
    no route rule speaks of is ``unknown``: the format says nothing about what the provider reads."""
    refused = [v for v in verdicts if v.kind == "rejected"]
    if refused:
        first = refused[0]
        return StateTreatment(treatment="rejected", rule=first.rule, detail=first.message)
    if view is None or view.state is None:
        return StateTreatment(treatment=None, rule=None, detail="the request carries no state message")
    state = view.state
    about = [v for v in verdicts if v.treatment is not None and v.turn == state.turn]
    if about:
        top = max(about, key=lambda v: SEVERITY[v.kind])
        return StateTreatment(treatment=top.treatment, rule=top.rule, detail=top.message)
    if not state.alone:
        merged = next((v for v in verdicts if v.treatment == "merged" and v.turn == state.turn), None)
        return StateTreatment(treatment="merged", rule=merged.rule if merged else None,
                              detail=f"part of the {state.role} turn with the {' and the '.join(state.mergedWith)}")
    if view.format == "openai":
        return StateTreatment(treatment="unknown", rule=None,
                              detail="no rule says what this route does with the message (the chat format does not)")
    return StateTreatment(treatment="own_message", rule=None,
                          detail=f"a {state.role} turn of its own, {state.fromEnd} turn(s) from the end")


def thinking_in(body: dict[str, Any]) -> bool:
    """Whether the body turns thinking on (Anthropic ``thinking``, Bedrock's inside additionalModelRequestFields)."""
    spec = body.get("thinking") or (body.get("additionalModelRequestFields") or {}).get("thinking")
    return isinstance(spec, dict) and spec.get("type") in ("enabled", "adaptive")


def preflight_body(model: str, body: dict[str, Any], thinking: bool = False, local: bool = False) -> list[Verdict]:
    """Every rule of the table the body meets, in table order; one ``ok`` verdict when none does.
    ``local``: the model is served on a loopback ``api_base`` (an OpenAI-style body then goes to a local
    server, whose chat template decides what a trailing assistant message is)."""
    fmt = wire_format(body)
    seq = turns(body, fmt)
    thinking = thinking or thinking_in(body)
    out: list[Verdict] = []
    if seq and fmt in ("anthropic", "bedrock_converse"):
        out += _claude_first(fmt, seq)
    out += _merges(fmt, seq)
    if fmt in ("anthropic", "bedrock_converse") and claude_version(model) is not None:
        out += _claude(model, fmt, body, seq, thinking)
    if fmt == "gemini":
        out += _gemini(model, body, seq)
    if fmt == "openai" and seq and seq[-1].speaker == "assistant":
        out.append(_verdict("local-server-trailing-assistant" if local else "chat-trailing-assistant-new-turn",
                            len(seq) - 1, model))
    if fmt == "bedrock_converse":
        out += [_verdict("bedrock-tool-result-text-mix", i) for i, t in enumerate(seq)
                if "tool result" in t.blocks and any(b != "tool result" for b in t.blocks)]
    return out or [Verdict(kind="ok", rule=None, message="no rule of the table applies to this body")]


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
    if fmt == "openai":
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
    version = gemini_version(model)
    if version is not None and version[0] >= 3:
        for index, content in enumerate(c for c in body.get("contents") or [] if isinstance(c, dict)):
            parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
            if any(p.get("thoughtSignature") == _PLACEHOLDER_SIGNATURE for p in parts):
                out.append(_verdict("gemini-3-signature-placeholder", index))
    return out
