"""The preflight of one request on one model, from the provider body litellm builds for it (P-80).

The body is built offline by litellm's own transformation (``harness.wire.request_wire_body``); the
rules of ``harness.wire.RULES`` are applied to it; the most severe verdict decides (``worst``).
The model name only picks which model a rule concerns. A scripted model has no provider: its
verdict is ``ok`` without a body. A model litellm cannot build a body for is ``unknown``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.models import ModelRequest, is_loopback
from harness.wire import (
    SEVERITY,
    Treatment,
    Verdict,
    VerdictKind,
    WireBuildError,
    WireView,
    analyze_wire,
    preflight_body,
    provider_of,
    request_wire_body,
    state_place,
    state_treatment,
    thinking_in,
    worst,
)
from protocols import Protocol

from ._request import first_request
from ._server import LocalServer, Rendering, ServerInfo, rendered_verdicts

FLAGGED: frozenset[str] = frozenset({"merged", "note", "prefill", "unknown", "rejected"})
"""Verdict kinds a report names as a caveat: the provider does not receive the request as the harness
built it (merged, prefill), refuses it, or no rule says what it does."""


class Preflight(BaseModel):
    """What ``model``'s provider makes of one request of ``protocol`` (camelCase, as report.json keeps it)."""

    model_config = ConfigDict(frozen=True)

    protocol: str
    placement: str | None
    model: str
    provider: str | None
    endsWith: str = Field(description="The role of the last message the harness builds (user, assistant, tool).")
    verdict: VerdictKind = Field(description="The most severe verdict: ok, merged, note, prefill, unknown, "
                                             "rejected (the provider answers 400).")
    rule: str | None = Field(description="The rule of that verdict (harness.wire.RULES); null: none applies.")
    source: str | None = None
    date: str | None = None
    flagged: bool = Field(description="The verdict is one of FLAGGED: a caveat of the report.")
    message: str = Field(description="What the provider does with the request, in words.")
    treatment: Treatment | None = Field(None, description="What the state message becomes: own_message, merged, "
                                        "prefill, new_turn, rejected, unknown (null: no state message, not rejected).")
    treatmentRule: str | None = Field(None, description="The rule that decides the treatment (null: none does).")
    treatmentDetail: str | None = Field(None, description="merged: with what; rejected: the provider's error.")
    verdicts: list[Verdict] = Field(default_factory=list, description="Every rule the body meets.")
    wire: WireView | None = Field(None, description="The body's turns as the provider receives them "
                                                    "(null: scripted, or no body could be built).")
    rendered: list[Rendering] = Field(default_factory=list, description="How the local server rendered the "
                                      "request, asked before the run (empty: not a local server, or it renders "
                                      "nothing it can be asked for).")
    localServer: ServerInfo | None = Field(None, description="What the local server is, as it answered (null: "
                                                             "not asked).")


def preflight(protocol: Protocol, model: str, api_base: str | None = None,
              request: ModelRequest | None = None, server: LocalServer | None = None) -> Preflight:
    """The verdict on ``request`` (default: the protocol's first request on a one-input session) for ``model``.
    ``server``: the local server behind a loopback ``api_base``, asked how it renders the body (``_server``);
    its reading replaces the table's "unknown" for a local server."""
    if request is None:
        projected = first_request(protocol)
        request = ModelRequest(messages=projected.messages, tools=projected.tools, max_output_tokens=1024)
    ends = str(request.messages[-1].get("role")) if request.messages else "user"
    base = {"protocol": protocol.key, "placement": protocol.state_placement, "model": model, "endsWith": ends}
    if model.startswith("scripted/"):
        return Preflight(**base, provider="scripted", verdict="ok", rule=None, flagged=False,
                         treatment="own_message", treatmentDetail="a scripted model reads the messages as built",
                         message="scripted model: reads the trailing assistant message as the script decides")
    provider = provider_of(model)
    try:
        body = request_wire_body(model, request, api_base)
    except (WireBuildError, ValueError) as exc:
        return Preflight(**base, provider=provider, verdict="unknown", rule=None, flagged=True,
                         treatment="unknown", treatmentDetail="no provider body could be built",
                         message=f"no provider body could be built, so no rule was checked: {exc}")
    verdicts = preflight_body(model, body, thinking=thinking_in(body), local=is_loopback(api_base))
    wire = analyze_wire(body)
    rendered: list[Rendering] = []
    about = None
    if server is not None and wire.format == "openai":
        about = server.about()
        rendering = server.render(body)
        verdicts = rendered_verdicts(verdicts, rendering, wire, about)
        rendered = [rendering] if rendering is not None else []
    top = worst(verdicts)
    treated = state_treatment(wire, verdicts)
    return Preflight(**base, provider=provider, verdict=top.kind, rule=top.rule, source=top.source, date=top.date,
                     flagged=top.kind in FLAGGED, message=_message(provider, wire, verdicts), verdicts=verdicts,
                     wire=wire, treatment=treated.treatment, treatmentRule=treated.rule,
                     treatmentDetail=treated.detail, rendered=rendered, localServer=about)


def _message(provider: str | None, wire: WireView, verdicts: list[Verdict]) -> str:
    """The state's place on the wire, then what each rule says (the most severe first)."""
    parts = [f"on {provider or 'this provider'}, the state message {state_place(wire)}"] if wire.state else []
    if wire.state is not None and "user input" in wire.state.mergedWith:
        parts[-1] += " (it becomes part of the user's own input)"
    if wire.endsWithAssistant:
        last = wire.turns[-1]
        what = " and the ".join(dict.fromkeys(last.blocks)) or "empty turn"
        parts.append(f"the request ends with the {what} as an assistant message" if wire.format == "openai" else
                     f"the request ends with the {what} as a trailing {last.role} turn: a prefill")
    ranked = sorted((v for v in verdicts if v.rule), key=lambda v: -SEVERITY[v.kind])
    said = [v for v in ranked if v.kind != "ok"] or ranked  # an ok rule is said only when nothing else is
    parts += [f"{v.kind}: {v.message} [{v.rule}]" for v in said]
    return "; ".join(parts) or "no rule of the table applies to this body"
