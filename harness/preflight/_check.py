"""The preflight of a group's requests on one model, from the provider bodies litellm builds for them (P-80).

Two requests per group: the first (a fresh session holding one user input) and a tool loop in progress (the
same session after the model called a business tool and its result came back: placement C's state then
follows a tool result). Each body is built offline by litellm's own transformation
(``harness.wire.request_wire_body``) and read against the rules of ``harness.wire.RULES`` on the model's
route; the most severe verdict decides (``worst``), and the state message's treatment is named
(``harness.wire.state_treatment``). The model name only picks which model a rule concerns. A scripted model
has no provider: its verdict is ``ok`` without a body. A model litellm cannot build a body for is ``unknown``.
On a loopback ``api_base`` the local server is asked how it renders each body (``_server``): its reading
replaces the table's "unknown" for a local server.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.models import ModelRequest, claude_thinks, supports_reasoning
from harness.wire import (
    SEVERITY,
    Route,
    StateTreatment,
    Treatment,
    Verdict,
    VerdictKind,
    WireBuildError,
    WireView,
    analyze_wire,
    gemini_version,
    preflight_body,
    provider_of,
    request_wire_body,
    route_of,
    state_place,
    state_treatment,
    thinking_in,
    worst,
)
from protocols import Protocol

from ._request import LOOP_CALL_ID, first_request
from ._server import LocalServer, Rendering, ServerInfo, rendered_verdicts

FLAGGED: frozenset[str] = frozenset({"merged", "note", "prefill", "unknown", "rejected"})
"""Verdict kinds a report names as a caveat: the provider does not receive the request as the harness
built it (merged, prefill), refuses it, or no rule says what it does."""
TREATMENT_ORDER: dict[Treatment, int] = {"own_message": 0, "merged": 1, "new_turn": 1, "prefill": 2, "unknown": 3,
                                         "rejected": 4}
"""Which of two requests' treatments a group's names: the one further from "as built" (ties: the first's)."""
_SIGNATURE = "cHJlZmxpZ2h0LXNpZ25hdHVyZQ=="  # base64 "preflight-signature": a thought signature's shape


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class RequestCheck(_Model):
    """The preflight of one request (camelCase, as report.json keeps it)."""

    request: Literal["first", "tool_loop"] = Field(description="first: a fresh session's first request; tool_loop: "
                                                               "the request after a business tool's result.")
    endsWith: str = Field(description="The role of the last message the harness builds (user, assistant, tool).")
    verdict: VerdictKind = Field(description="The most severe verdict: ok, merged, note, prefill, unknown, "
                                             "rejected (the provider answers 400).")
    rule: str | None = Field(description="The rule of that verdict (harness.wire.RULES); null: none applies.")
    source: str | None = None
    date: str | None = None
    treatment: Treatment | None = Field(None, description="What the state message becomes: own_message, merged, "
                                        "prefill, new_turn, rejected, unknown (null: no state message, not rejected).")
    treatmentRule: str | None = Field(None, description="The rule that decides the treatment (null: none does).")
    treatmentDetail: str | None = Field(None, description="merged: with what; rejected: the provider's error.")
    message: str = Field(description="What the provider does with the request, in words.")
    verdicts: list[Verdict] = Field(default_factory=list, description="Every rule the body meets.")
    wire: WireView | None = Field(None, description="The body's turns as the provider receives them "
                                                    "(null: scripted, or no body could be built).")
    rendered: list[Rendering] = Field(default_factory=list, description="How the local server rendered the "
                                      "request, asked before the run (empty: not a local server, or it renders "
                                      "nothing it can be asked for); a group's entry lists both requests'.")


class Preflight(RequestCheck):
    """What ``model``'s provider makes of a group's requests: the first request's check, the tool loop's, and
    the group's verdict and treatment over both (the more severe; ``flagged`` for a caveat)."""

    protocol: str
    placement: str | None
    model: str
    provider: str | None
    route: str | None = Field(None, description="The route the rules read (openai, mistral, local, other, ...).")
    flagged: bool = Field(description="The verdict is one of FLAGGED: a caveat of the report.")
    decidedBy: Literal["first", "tool_loop"] = Field("first", description="Which request decided the verdict.")
    toolLoop: RequestCheck | None = Field(None, description="The request after a business tool's result (null: "
                                                            "none was built).")
    localServer: ServerInfo | None = Field(None, description="What the local server is, as it answered (null: "
                                                             "not asked).")


def preflight(protocol: Protocol, model: str, api_base: str | None = None, request: ModelRequest | None = None,
              tool_loop: ModelRequest | None = None, server: LocalServer | None = None) -> Preflight:
    """The verdict on ``request`` (default: the protocol's first request on a one-input session) for ``model``,
    and on ``tool_loop`` when given (the group's verdict is the more severe of the two). ``server``: the local
    server behind a loopback ``api_base``, asked how it renders each body (``_server``)."""
    if request is None:
        projected = first_request(protocol)
        request = ModelRequest(messages=projected.messages, tools=projected.tools, max_output_tokens=1024)
    base = {"protocol": protocol.key, "placement": protocol.state_placement, "model": model}
    if model.startswith("scripted/"):
        return Preflight(**base, request="first", endsWith=_ends(request), provider="scripted", verdict="ok",
                         rule=None, flagged=False, treatment="own_message",
                         treatmentDetail="a scripted model reads the messages as built",
                         message="scripted model: reads the trailing assistant message as the script decides")
    provider = provider_of(model)
    route = route_of(model, provider, api_base)
    first = check_request("first", model, provider, route, request, api_base, server)
    loop = (None if tool_loop is None
            else check_request("tool_loop", model, provider, route, tool_loop, api_base, server))
    top = first if loop is None or SEVERITY[loop.verdict] <= SEVERITY[first.verdict] else loop
    treated = first if loop is None or _order(loop.treatment) <= _order(first.treatment) else loop
    detail = treated.treatmentDetail if treated is first else f"in a tool loop: {treated.treatmentDetail}"
    fields = first.model_dump(exclude={"verdict", "rule", "source", "date", "treatment", "treatmentRule",
                                       "treatmentDetail", "rendered"})
    rendered = first.rendered + (loop.rendered if loop is not None else [])
    about = server.about() if server is not None and first.wire is not None and first.wire.format == "openai" else None
    return Preflight(**base, **fields, rendered=rendered, localServer=about, provider=provider, route=route.name,
                     verdict=top.verdict, rule=top.rule,
                     source=top.source, date=top.date, flagged=top.verdict in FLAGGED, decidedBy=top.request,
                     treatment=treated.treatment,
                     treatmentRule=treated.treatmentRule, treatmentDetail=detail,
                     toolLoop=None if loop is None else loop.model_copy(update={"rendered": []}))


def _order(treatment: Treatment | None) -> int:
    return -1 if treatment is None else TREATMENT_ORDER[treatment]


def _ends(request: ModelRequest) -> str:
    return str(request.messages[-1].get("role")) if request.messages else "user"


def check_request(which: Literal["first", "tool_loop"], model: str, provider: str | None, route: Route,
                  request: ModelRequest, api_base: str | None, server: LocalServer | None = None) -> RequestCheck:
    """One request's body built offline and read against the route's rules; on a local ``server``, its
    rendering of the body replaces the rules that say only "the server was not asked"."""
    try:
        body = request_wire_body(model, request, api_base)
    except (WireBuildError, ValueError) as exc:
        return RequestCheck(request=which, endsWith=_ends(request), verdict="unknown", rule=None, treatment="unknown",
                            treatmentDetail="no provider body could be built",
                            message=f"no provider body could be built, so no rule was checked: {exc}")
    verdicts = preflight_body(model, body, thinking=thinking_in(body), route=route, sent=request.messages)
    wire = analyze_wire(body)
    rendered: list[Rendering] = []
    if server is not None and wire.format == "openai":
        rendering = server.render(body, which)
        verdicts = rendered_verdicts(verdicts, rendering, wire, server.about())
        rendered = [rendering] if rendering is not None else []
    top = worst(verdicts)
    treated: StateTreatment = state_treatment(wire, verdicts)
    return RequestCheck(request=which, endsWith=_ends(request), verdict=top.kind, rule=top.rule, source=top.source,
                        date=top.date, treatment=treated.treatment, treatmentRule=treated.rule,
                        treatmentDetail=treated.detail, message=_message(provider, wire, verdicts),
                        verdicts=verdicts, wire=wire, rendered=rendered)


def returned_reasoning(model: str, route: Route, extra: dict[str, Any]) -> dict[str, Any] | None:
    """What a thinking model of this route returns with a tool call, in ``MessageDraft.reasoning``'s keys, so
    the tool loop request carries what a real trial sends back: Claude's signed thinking blocks (thinking on),
    Gemini's thought signature, the reasoning_content of a DeepSeek or Kimi reasoning model."""
    name = route.name
    if name in ("anthropic", "bedrock") or (name == "vertex_ai" and "claude" in model.lower()):
        if not claude_thinks(route.provider, model, extra):
            return None
        block = {"type": "thinking", "thinking": "(the model's reasoning)", "signature": _SIGNATURE}
        return {"thinking_blocks": [block]}
    if name in ("gemini", "vertex_ai") and (gemini_version(model) or (0, 0, ""))[:2] >= (2, 5):
        return {"provider_specific_fields": {LOOP_CALL_ID: {"thought_signature": _SIGNATURE}}}
    thinks = supports_reasoning(model) or extra.get("reasoning_effort") not in (None, "none") or (
        isinstance(extra.get("thinking"), dict) and extra["thinking"].get("type") == "enabled")
    if name in ("deepseek", "moonshot") and thinks:
        return {"reasoning_content": "(the model's reasoning)"}
    return None


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
