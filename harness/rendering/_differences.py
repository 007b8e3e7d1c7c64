"""The difference panel's view: report.json ``groupDifferences`` made readable.

The partials ``_differences.html.j2`` and ``_differences.md.j2`` render it: an intro of one line
per group, what its request differs in and whether that is what the design lets it differ in (the
``summary`` computed when the run was reported), then the table; the HTML keeps every word change
behind an expandable summary, the Markdown lists the first few and points to report.json. The wire
line (``wire``) shows, per provider, the turns each side's request becomes (``assistant[header] ·
user[user input + state]``) and what they differ in there.
"""

from __future__ import annotations

from typing import Any

MD_CHANGES = 4
MD_WORDS = 80


def _roles(roles: list[str]) -> str:
    return " → ".join(roles)


def _place(side: dict[str, Any] | None) -> str:
    return "none" if not side else f"#{side['position']} {side['role']}"


def _short(text: str) -> str:
    return text if len(text) <= MD_WORDS else text[: MD_WORDS - 1] + "…"


def _sign(change: dict[str, Any], limit: bool) -> str:
    cut = _short if limit else str
    parts = []
    if change.get("control"):
        parts.append(f"−“{cut(change['control'])}”")
    if change.get("group"):
        parts.append(f"+“{cut(change['group'])}”")
    return " ".join(parts)


def _brief(changes: list[dict[str, Any]]) -> str:
    shown = "; ".join(_sign(c, True) for c in changes[:MD_CHANGES])
    more = len(changes) - MD_CHANGES
    return shown + (f"; … {more} more (report.json)" if more > 0 else "")


def wire_shape(view: dict[str, Any] | None) -> str:
    """The turns a provider receives: ``assistant[header] · user[user input + state]``."""
    turns = (view or {}).get("turns") or []
    return " · ".join(f"{t['role']}[{' + '.join(dict.fromkeys(t['blocks'])) or 'empty'}]" for t in turns)


def _treated(shape: str, treated: dict[str, Any] | None) -> str:
    """The turns, then what the state becomes and by which rule: ``… · assistant[state] → prefill (rule)``."""
    if not treated or not treated.get("treatment"):
        return shape
    rule = f" ({treated['rule']})" if treated.get("rule") else ""
    return f"{shape} → state {treated['treatment']}{rule}"


def _wire(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"provider": w.get("provider"), "model": w.get("model"),
             "control": _treated(wire_shape(w.get("control")), w.get("controlTreatment")),
             "group": _treated(wire_shape(w.get("group")), w.get("groupTreatment")),
             "differsIn": ", ".join(w.get("differsIn") or []) or "nothing",
             "notes": "; ".join(f"{n['side']}: {n['message']} [{n['rule']}]" for n in w.get("notes") or []),
             "summary": w.get("summary") or ""} for w in d.get("wire") or []]


def differences(report: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for d in report.get("groupDifferences") or []:
        roles = d.get("messageRoles") or {}
        state = d.get("stateMessage") or {}
        prompt, text = d.get("systemPrompt") or [], state.get("text") or []
        out.append({
            "group": d["group"], "control": d["control"], "stage": d["stage"],
            "requests": f"{d.get('controlRequest')} / {d.get('groupRequest')}",
            "systemPrompt": [{"op": c["op"], "text": _sign(c, False)} for c in prompt],
            "systemPromptBrief": _brief(prompt) if prompt else "identical",
            "tools": ", ".join(d.get("tools") or []) or "identical",
            "rolesSame": roles.get("control") == roles.get("group"),
            "controlRoles": _roles(roles.get("control") or []), "groupRoles": _roles(roles.get("group") or []),
            "controlState": _place(state.get("control")), "groupState": _place(state.get("group")),
            "stateText": [{"op": c["op"], "text": _sign(c, False)} for c in text],
            "stateTextBrief": _brief(text) if text else "",
            "otherMessages": "; ".join(d.get("otherMessages") or []) or "none",
            "summary": d.get("summary") or "", "wire": _wire(d),
        })
    return out
