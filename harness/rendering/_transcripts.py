"""The transcript viewer's data: each provider request of a trial as sent, with every message's
source (raw / system / derived header, fold, state), the state block's position, tool calls paired
with their results, and anchors that failed checks link to (O-20). Beside the harness's messages,
the provider body the call sent where the snapshot captured it (E-11, ``providerRequest``), with
the turns the provider receives (``harness.wire``); not for scripted models, which have no provider.

report.html shows at most ``EMBED_TEXT`` characters of any one text (a message, an answer, a tool
call's arguments or result) and ``EMBED_PER_TRIAL`` characters of one trial's transcript; what is
left out is marked, and the trial's transcript file keeps every character (a server that
ignored ``max_tokens`` made a 126 MB report.html).

On a local server the preflight asked how the server renders each group's first request (P-80,
report.json ``preflight[].rendered``: the prompt's tail, what it makes of the state message, or the
template's error); the first trial of that group and stage shows it above its requests, the whole prompt
being in the run directory's ``rendered/`` folder."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.wire import analyze_wire

DERIVED = {"context_header": "header", "context_fold": "fold", "context_state": "state"}
EMBED_TEXT = 10_000
"""Characters of one text report.html shows."""
EMBED_PER_TRIAL = 300_000
"""Characters of one trial's transcript report.html shows."""


class _Budget:
    """What is left of one trial's share of report.html; ``clip`` marks what it leaves out."""

    def __init__(self, where: str | None) -> None:
        self.left = EMBED_PER_TRIAL
        self.where = where or "the trial's transcript file"

    def clip(self, text: str) -> str:
        shown = min(len(text), EMBED_TEXT, max(self.left, 0))
        self.left -= shown
        if shown == len(text):
            return text
        return (text[:shown] + f"\n… [{len(text) - shown:,} more characters not shown in this report; "
                f"{self.where} has the whole text]")


def anchor(kind: str, ident: str) -> str:
    return f"{kind}-" + re.sub(r"[^A-Za-z0-9_-]+", "_", ident)


def load_transcripts(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """trial id → its snapshot lines in order; torn or non-object lines are skipped."""
    out: dict[str, list[dict[str, Any]]] = {}
    root = run_dir / "transcripts"
    if not root.is_dir():
        return out
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                snap = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(snap, dict):
                tid = str(snap.get("trialId") or path.relative_to(root).with_suffix("").as_posix())
                out.setdefault(tid, []).append(snap)
    for snaps in out.values():
        snaps.sort(key=lambda s: s.get("seq", 0) if isinstance(s.get("seq"), int) else 0)
    return out


def text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "\n".join(str(p.get("text", "")) for p in content)
    return json.dumps(content, ensure_ascii=False, indent=1, sort_keys=True)


def _call_parts(call: dict[str, Any]) -> tuple[str, str, str]:
    fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
    args = fn.get("arguments", "")
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return str(call.get("id", "")), str(fn.get("name", "")), args


def _source_label(source: dict[str, Any] | None) -> tuple[str, str]:
    """(css kind, label) of one message's source (P-19)."""
    if not source:
        return "raw", "raw"
    kind = str(source.get("type", "raw"))
    if kind in DERIVED:
        return DERIVED[kind], f"derived: {DERIVED[kind]}"
    return ("system", "system") if kind == "system" else ("raw", "raw")


def state_badge(messages: list[dict[str, Any]], sources: list[dict[str, Any]]) -> str:
    for i, source in enumerate(sources):
        if isinstance(source, dict) and source.get("type") == "context_state":
            role = messages[i].get("role", "?") if i < len(messages) else "?"
            where = "last message" if i == len(messages) - 1 else f"message {i + 1} of {len(messages)}"
            return f"state: {where}, role {role}"
    return "state: none in this request"


class _Anchors:
    """Anchors of one trial: message and call ids are only unique within a session, so every anchor
    is scoped by the trial; ``targets`` maps the trial's evidence ids to their anchors."""

    def __init__(self, trial: str, used: set[str]) -> None:
        self.trial = trial
        self.used = used
        self.targets: dict[str, str] = {}

    def claim(self, kind: str, ident: str) -> str | None:
        """The anchor for ``ident`` on its first appearance in the trial; None when already placed."""
        name = anchor(kind, ident if kind == "snap" else f"{self.trial}/{ident}")
        if not ident or name in self.used:
            return None
        self.used.add(name)
        self.targets.setdefault(ident, name)
        return name


def _snapshot(snap: dict[str, Any], anchors: _Anchors, budget: _Budget) -> dict[str, Any]:
    request = snap.get("request") or {}
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    sources = [s if isinstance(s, dict) else {} for s in snap.get("sources") or []]
    results = {str(m.get("tool_call_id")): budget.clip(text_of(m.get("content")))
               for m in messages if m.get("role") == "tool"}
    views = []
    for i, m in enumerate(messages):
        source = sources[i] if i < len(sources) else None
        kind, label = _source_label(source)
        ids = [str(x) for x in (source or {}).get("messageIds") or []]
        calls = []
        for c in m.get("tool_calls") or []:
            cid, name, args = _call_parts(c)
            calls.append({"id": cid, "name": name, "args": budget.clip(args), "anchor": anchors.claim("call", cid),
                          "result": results.get(cid)})
        views.append({
            "index": i + 1, "role": str(m.get("role", "?")), "kind": kind, "label": label,
            "content": budget.clip(text_of(m.get("content"))), "toolCalls": calls,
            "toolCallId": m.get("tool_call_id"), "messageIds": ids,
            "anchors": [a for a in (anchors.claim("msg", x) for x in ids) if a],
            "isState": kind == "state", "isLast": i == len(messages) - 1,
        })
    response = snap.get("response") or {}
    reply_calls = []
    for c in response.get("toolCalls") or []:
        cid, name, args = _call_parts(c if isinstance(c, dict) else {})
        reply_calls.append({"id": cid, "name": name, "args": budget.clip(args)})
    sid = str(snap.get("id", f"seq-{snap.get('seq')}"))
    return {
        "id": sid, "anchor": anchors.claim("snap", sid), "seq": snap.get("seq"), "role": snap.get("role"),
        "runId": snap.get("runId"), "step": snap.get("step"), "model": snap.get("model") or request.get("model"),
        "messages": views, "badge": state_badge(messages, sources),
        "stateLast": bool(views) and views[-1]["isState"],
        "response": {"content": budget.clip(text_of(response.get("content"))), "toolCalls": reply_calls,
                     "finishReason": response.get("finishReason")} if response else None,
        "error": snap.get("error"), "usage": snap.get("usage") or {}, **_provider_body(snap, budget),
    }


def _provider_body(snap: dict[str, Any], budget: _Budget) -> dict[str, Any]:
    """``providerBody`` (the JSON sent, clipped like any text) and ``providerTurns`` (its turns in one line)."""
    body = snap.get("providerRequest")
    if not isinstance(body, dict) or str(snap.get("model") or "").startswith("scripted/"):
        return {"providerBody": None, "providerTurns": None}
    try:
        turns = " · ".join(f"{t.role}[{' + '.join(dict.fromkeys(t.blocks)) or 'empty'}]"
                           for t in analyze_wire(body).turns)
    except (TypeError, ValueError, KeyError, AttributeError):  # a shape the wire reader does not know: shown
        turns = None
    return {"providerBody": budget.clip(json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True)),
            "providerTurns": turns}


def _renderings(report: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(group, stage) → how the local server rendered the group's requests before the run (none elsewhere)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in report.get("preflight") or []:
        shown = [{**r, "tail": r.get("tail") or ""} for r in entry.get("rendered") or [] if isinstance(r, dict)]
        if shown:
            out[(str(entry.get("group")), str(entry.get("stage")))] = shown
    return out


def trial_views(report: dict[str, Any], transcripts: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One view per trial of the report, in group, stage, repeat order, with checks linked to evidence; the
    first trial of a group's preflight stage carries the local server's rendering of its first request."""
    used: set[str] = set()
    out = []
    rendered = _renderings(report)
    for group in report.get("groups", []):
        for stage in group.get("stages", []):
            for trial in stage.get("trials", []):
                tid = str(trial.get("id"))
                anchors = _Anchors(tid, used)
                budget = _Budget(trial.get("transcript"))
                runs = [{**r, **{k: budget.clip(str(r[k])) for k in ("input", "finalAnswer") if r.get(k) is not None}}
                        for r in trial.get("runs", []) if isinstance(r, dict)]
                snaps = [_snapshot(s, anchors, budget) for s in transcripts.get(tid, [])]
                renderings = rendered.pop((str(group.get("id")), str(stage.get("id"))), [])
                out.append({"rendered": renderings,"id": tid, "anchor": anchor("trial", tid), "group": group.get("id"),
                            "stage": stage.get("id"), "status": trial.get("status"),
                            "reason": trial.get("error") or trial.get("reason"),
                            "failureMode": trial.get("failureMode"), "failureDetail": trial.get("failureDetail"),
                            "runs": runs, "snapshots": snaps,
                            "checks": [_linked(c, anchors.targets) for c in trial.get("checks", [])]})
    return out


def _linked(check: dict[str, Any], targets: dict[str, str]) -> dict[str, Any]:
    evidence = [{"text": str(e), "anchor": targets.get(str(e))} for e in check.get("evidence") or []]
    return {**check, "evidence": evidence}
