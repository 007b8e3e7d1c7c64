"""report.json ``preflight``: what each group's first request becomes on the run's model (P-80).

One entry per group × model, as the runner's preflight found it before any call: the most severe
verdict of the provider rules applied to the body litellm built offline, its rule, source and date,
every verdict, the turns the provider receives, and whether the group's requests were sent (a group
the provider rejects is not, unless ``--send-rejected``). ``harness rescore`` keeps the recording's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.preflight import Rendering, RequestCheck, ServerInfo
from harness.wire import Treatment, Verdict, VerdictKind, WireView


class PreflightEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    group: str
    stage: str = Field(description="The stage whose first input the checked request carries.")
    model: str
    provider: str | None
    protocol: str
    placement: str | None = None
    route: str | None = Field(None, description="The route the rules read (openai, mistral, local, other, ...); null "
                                                "in reports written before.")
    decidedBy: str = Field("first", description="Which request decided the verdict: first or tool_loop.")
    request: str = Field("first", description="The request the fields below describe (message, verdicts, wire): "
                                             "the group's first; verdict and treatment are over both requests.")
    endsWith: str = Field(description="Role of the last message the harness builds.")
    verdict: VerdictKind = Field(description="The most severe verdict (ok, merged, note, prefill, unknown, rejected).")
    rule: str | None = Field(description="The rule of that verdict (null: none applies).")
    source: str | None = None
    date: str | None = None
    flagged: bool = Field(description="Named among the caveats: merged, note, prefill, unknown or rejected.")
    sent: bool = Field(True, description="False: the provider rejects these requests and the run did not send "
                                         "them (its trials are skipped; --send-rejected sends them).")
    message: str
    treatment: Treatment | None = Field(None, description="What the state message becomes on this route: "
                                        "own_message, merged, prefill, new_turn, rejected, unknown (null: the "
                                        "request has no state message and is not rejected).")
    treatmentRule: str | None = Field(None, description="The rule that decides the treatment.")
    treatmentDetail: str | None = Field(None, description="merged: with what; rejected: the provider's error.")
    verdicts: list[Verdict] = Field(default_factory=list)
    wire: WireView | None = Field(None, description="The request's turns as the provider receives them.")
    rendered: list[Rendering] = Field(default_factory=list, description="A local server's rendering of the "
                                      "request, asked before the run: the prompt's tail and what it makes of "
                                      "the state message, or the template's error (the whole prompt: rendered/).")
    localServer: ServerInfo | None = Field(None, description="The local server as it answered (null: not asked); "
                                                             "the same on every entry of a run.")
    toolLoop: RequestCheck | None = Field(None, description="The request after a business tool's result: its own "
                                                            "verdict, treatment, rules and turns (null: not built).")


UNRENDERED = "local-server-unrendered"


def preflight_caveats(entries: list[dict[str, Any]]) -> list[str]:
    """One caveat per flagged entry (``preflight GROUP (PROTOCOL on MODEL): VERDICT: …``, with the state
    message's treatment and, when the tool loop decides the verdict, its message); a local server is named
    once, and the groups it left ``unknown`` because it renders nothing share one caveat."""
    out: list[str] = []
    server = next((p["localServer"] for p in entries if p.get("localServer")), None)
    if server is not None:
        out.append(f"local server at {server['apiBase']} ({server['kind']}, {server['detectedBy']}): "
                   f"{server['message']}")
    unrendered = [p for p in entries if p.get("flagged") and p.get("rule") == UNRENDERED]
    for p in entries:
        if not p.get("flagged") or p.get("rule") == UNRENDERED:
            continue
        loop = p.get("toolLoop") or {}
        message = f"in a tool loop: {loop['message']}" if p.get("decidedBy") == "tool_loop" and loop else p["message"]
        treated = f"; state message: {p['treatment']}" if p.get("treatment") else ""
        out.append(f"preflight {p['group']} ({p['protocol']} on {p['model']}): {p['verdict']}"
                   + ("" if p.get("sent", True) else ", not sent") + f": {message}{treated}")
    if unrendered:
        groups = ", ".join(p["group"] for p in unrendered)
        out.append(f"preflight {groups} on {unrendered[0]['model']}: unknown: the local server renders nothing the "
                   "harness can ask for, so what its chat template makes of the state message is not known "
                   f"[{UNRENDERED}]")
    return out
