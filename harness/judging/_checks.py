"""Every check of the check table (03-experiments.md): passed / failed / not_exercised /
not_applicable, a detail and the evidence (snapshot ids, message ids, KV keys) that proves it.

``not_applicable`` means only that the protocol lacks the capability (window checks on prefix@2).
A check whose precondition never occurred (no fold, no compression, nothing stored, no mismatch)
ends ``not_exercised``: it has not passed, and when the plan's check is ``required`` the trial does
not pass either (``_trial.judge``). The table of which check can end which way is in
docs/evidence.md.

Turn checks read one run; trial checks read the trial's runs, its redacted snapshots (the requests
as sent, with their sources) and its store. The read-back checks probe ``context_fold_read``
through the protocol's dispatcher after the trial, with fresh call ids: no model call, no charge; a fold
both of them cover is read back once (``TrialView.readbacks``).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from harness.engine import RunResult
from harness.plan import mentions
from harness.results._records import CheckResult
from protocols import FrozenView, Protocol, ToolCall, canonical_json, new_run_id
from protocols.store import SessionStore


@dataclass
class TrialView:
    """Everything the checks of one trial may read."""

    protocol: Protocol
    store: SessionStore
    session_id: str
    runs: list[RunResult]
    snapshots: list[dict[str, Any]]
    memories: list[dict[str, str]] = field(default_factory=list)
    """Per finished turn: ``window/<id>`` → its workingMemory, read right after the turn."""
    readbacks: dict[str, str | None] = field(default_factory=dict)
    """fold id → what reading it back found (None: its raw messages), kept for the other checks of this view:
    ``fold_readback`` and ``compression_readback`` read a fold once (the probes change no fold or message)."""


def _r(name: str, result: str, detail: str, evidence: list[str] | None = None, turn: int | None = None) -> CheckResult:
    return CheckResult(name=name, result=result, detail=detail, evidence=evidence or [], turn=turn)


# turn checks --------------------------------------------------------------------------------------
def turn_check(check: Any, run: RunResult, turn: int) -> CheckResult:
    evidence = run.snapshot_ids[-1:]
    name = check.name
    if name in ("answer_contains", "answer_not_contains"):
        passed, detail = check.evaluate(run.final_answer)
        return _r(name, "passed" if passed else "failed", detail, evidence, turn)
    executed = [c for c in run.tool_calls if c.executed]
    if name == "tool_called":
        n = sum(c.name == check.tool for c in executed)
        ok = n >= check.min and (check.max is None or n <= check.max)
        bound = f"{check.min}…{check.max if check.max is not None else '∞'}"
        return _r(name, "passed" if ok else "failed", f"{check.tool} called {n} time(s), expected {bound}",
                  [c.call_id for c in executed if c.name == check.tool] or evidence, turn)
    if name == "tool_not_called":
        hits = [c.call_id for c in executed if c.name == check.tool]
        return _r(name, "failed" if hits else "passed",
                  f"{check.tool} called {len(hits)} time(s)" if hits else f"{check.tool} never called",
                  hits or evidence, turn)
    if name == "run_completed":
        ok = run.status == "completed"
        return _r(name, "passed" if ok else "failed",
                  f"run ended {run.status}" + (f": {run.error}" if run.error else ""), evidence, turn)
    raise AssertionError(f"unknown turn check {name}")


# trial checks -------------------------------------------------------------------------------------
def trial_check(check: Any, view: TrialView) -> CheckResult:
    handler = _TRIAL[check.name]
    result = handler(check, view)
    return result.model_copy(update={"required": bool(getattr(check, "required", True))})


def _agent_snapshots(view: TrialView) -> list[dict[str, Any]]:
    return [s for s in view.snapshots if s.get("role") == "agent" and s.get("request")]


def _body(content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else ""
    start = text.find("\n{")
    try:
        value = json.loads(text[start + 1:]) if start >= 0 else None
    except json.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {}


def state_in_every_request(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    if not view.protocol.has_state_message:
        return _r(name, "not_applicable", f"{view.protocol.key} has no context_state message")
    placement, role = view.protocol.state_placement, view.protocol.state_role
    problems: list[str] = []
    evidence: list[str] = []
    snaps = _agent_snapshots(view)
    for snap in snaps:
        sid = str(snap["id"])
        evidence.append(sid)
        sources, messages = snap.get("sources") or [], snap["request"]["messages"]
        at = [i for i, s in enumerate(sources) if s.get("type") == "context_state"]
        if len(at) != 1:
            problems.append(f"{sid}: {len(at)} context_state messages")
            continue
        pos = at[0]
        header: dict[str, Any] = next((s for s in sources if s.get("type") == "context_header"), {})
        expected_pos = 2 if placement == "before_history_assistant" else len(sources) - 1
        if pos != expected_pos:
            problems.append(f"{sid}: context_state at position {pos}, {placement} puts it at {expected_pos}")
        if messages[pos].get("role") != role:
            problems.append(f"{sid}: context_state has role {messages[pos].get('role')}, expected {role}")
        active = header.get("windowId")
        named = _body(messages[pos].get("content")).get("windowId")
        if sources[pos].get("windowId") != active or named != active:
            problems.append(f"{sid}: context_state names window {named!r}, active at freeze time was {active!r}")
    if not snaps:
        return _r(name, "not_exercised", "no agent request was made, so no request could hold the state")
    if problems:
        return _r(name, "failed", "; ".join(problems[:5]), evidence)
    return _r(name, "passed", f"{len(snaps)} request(s), each with one context_state ({placement}, role {role})",
              evidence)


def window_mismatch_recovered(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    if not view.protocol.requires_expected_window:
        return _r(name, "not_applicable", f"{view.protocol.key} has no expectedWindowId, so no mismatch")
    mismatches = [(run, c) for run in view.runs for c in run.tool_calls if c.error_code == "context_window_mismatch"]
    if not mismatches:
        return _r(name, "not_exercised", "no context_window_mismatch occurred, so no recovery could be seen")
    problems, evidence = [], []
    for run, call in mismatches:
        evidence.append(call.call_id)
        message = view.store.message_by_call_id(view.session_id, call.call_id)
        frozen = message.frozen_view.revision if message and message.frozen_view else None
        after = _next_frozen_revision(view, run.run_id, call.step)
        if frozen is None or after is None or after != frozen:
            problems.append(f"{call.call_id}: revision {frozen} before, {after} after the rejected write")
        if run.status != "completed":
            problems.append(f"run {run.run_id} ended {run.status}")
    if problems:
        return _r(name, "failed", "; ".join(problems[:5]), evidence)
    return _r(name, "passed", f"{len(mismatches)} mismatch(es), none changed the state; runs completed", evidence)


def _next_frozen_revision(view: TrialView, run_id: str, step: int) -> int | None:
    """The KV revision the next step of the run froze (the revision right after the rejected call)."""
    for snap in _agent_snapshots(view):
        if snap.get("runId") == run_id and int(snap.get("step") or 0) == step + 1:
            frozen = snap.get("frozenView") or {}
            return int(frozen["revision"]) if "revision" in frozen else None
    return None


def memory_preserved(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    if not view.protocol.has_windows:
        return _r(name, "not_applicable", f"{view.protocol.key} has no windows")
    if len(view.memories) < check.afterTurn:
        return _r(name, "not_exercised", f"the trial ended before turn {check.afterTurn}")
    found: dict[tuple[str, str], bool] = {}

    def has(text: str, needle: str) -> bool:
        """``mentions``, asked once per memory text and needle: a window's memory is the same text on every turn
        that leaves it alone, and the first turn checked is the one ``holders`` read."""
        if (text, needle) not in found:
            found[text, needle] = mentions(text, needle)
        return found[text, needle]

    captured = view.memories[check.afterTurn - 1]
    holders = {key: [c for c in check.contains if has(text, c)] for key, text in captured.items()}
    holders = {key: found for key, found in holders.items() if found}
    if not holders:
        stored = ", ".join(f"{k}: {_short(v)}" for k, v in captured.items() if v) or "every window memory was empty"
        return _r(name, "not_exercised", f"no window memory held {check.contains} after turn {check.afterTurn}, "
                  f"so nothing could be preserved ({stored})", sorted(captured))
    problems: list[str] = []
    for turn in range(check.afterTurn, len(view.memories) + 1):
        memories = view.memories[turn - 1]
        for key, wanted in holders.items():
            text = memories.get(key) or ""
            lost = [c for c in wanted if not has(text, c)]
            bad = [f for f in check.forbidden if has(text, f)]
            if lost:
                problems.append(f"after turn {turn} {key} no longer holds {lost}")
            if bad:
                problems.append(f"after turn {turn} {key} holds forbidden {bad}")
    evidence = sorted(holders)
    if problems:
        return _r(name, "failed", "; ".join(dict.fromkeys(problems)), evidence)
    return _r(name, "passed", f"{', '.join(evidence)} kept {sorted({c for v in holders.values() for c in v})} "
              f"through turn {len(view.memories)} without {check.forbidden}", evidence)


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def read_fold(view: TrialView, fold_id: str) -> tuple[str | None, str]:
    """The fold's text read slice by slice through the dispatcher (fresh call ids, uncharged)."""
    store, sid = view.store, view.session_id
    text, cursor = "", 0
    while True:
        frozen = FrozenView(revision=store.revision(sid), upper_bound=store.max_index(sid), run_id=new_run_id())
        call = ToolCall(id=f"probe_{uuid.uuid4().hex}", name="context_fold_read",
                        arguments=json.dumps({"purpose": "read-back check", "foldId": fold_id, "cursor": cursor}))
        result = view.protocol.dispatch(store, sid, call, frozen)
        if not result.get("success", False):
            return None, f"{fold_id}: read failed with {result.get('error', result)}"
        text += str(result.get("text", ""))
        nxt = result.get("nextCursor")
        if nxt is None:
            return text, ""
        cursor = int(nxt)


def _readback(view: TrialView, fold_ids: list[str]) -> list[str]:
    problems = []
    for fold_id in fold_ids:
        if fold_id not in view.readbacks:
            view.readbacks[fold_id] = _read_back(view, fold_id)
        problem = view.readbacks[fold_id]
        if problem is not None:
            problems.append(problem)
    return problems


def _read_back(view: TrialView, fold_id: str) -> str | None:
    """What is wrong with the fold read back through the dispatcher, None when it is its raw messages."""
    fold = view.store.kv_get(view.session_id, f"fold/{fold_id}")
    assert isinstance(fold, dict)
    raw = view.store.messages_by_ids(view.session_id, list(fold.get("messageIds") or []))
    expected = canonical_json([m.wire() for m in raw])
    text, problem = read_fold(view, fold_id)
    if text is None:
        return problem
    if text != expected:
        return f"{fold_id}: read back {len(text)} characters that differ from its raw messages"
    return None


def _folds(view: TrialView) -> dict[str, dict[str, Any]]:
    return {k.removeprefix("fold/"): v for k, v in view.store.kv_prefix(view.session_id, "fold/").items()
            if isinstance(v, dict)}


def fold_readback(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    if not view.protocol.has_folds:
        return _r(name, "not_applicable", f"{view.protocol.key} has no folds")
    folds = sorted(_folds(view))
    if not folds:
        return _r(name, "not_exercised", "the trial made no fold, so no fold could be read back")
    problems = _readback(view, folds)
    evidence = [f"fold/{f}" for f in folds]
    if problems:
        return _r(name, "failed", "; ".join(problems), evidence)
    return _r(name, "passed", f"{len(folds)} fold(s) read back equal to their raw messages", evidence)


def compression_readback(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    if not view.protocol.has_folds:
        return _r(name, "not_applicable", f"{view.protocol.key} has no folds, so no compressed fold can be read back")
    ran = [m for run in view.runs for m in run.maintenance if m.status == "compressed"]
    if not ran:
        return _r(name, "not_exercised", "no maintenance compressed anything in this trial")
    compressed = sorted({f for m in ran for f in m.compressed_folds})
    if not compressed:
        return _r(name, "not_exercised", f"{len(ran)} compression(s) ran but none covered a fold")
    problems = _readback(view, compressed)
    evidence = [f"fold/{f}" for f in compressed]
    if problems:
        return _r(name, "failed", "; ".join(problems), evidence)
    return _r(name, "passed", f"{len(compressed)} compressed fold(s) still read back raw", evidence)


def same_session(check: Any, view: TrialView) -> CheckResult:
    name = check.name
    sessions = {run.session_id for run in view.runs}
    inputs = [m for m in view.store.all_messages(view.session_id) if m.kind == "input"]
    runs_in_store = [m.run_id for m in inputs]
    ok = sessions == {view.session_id} and runs_in_store == [r.run_id for r in view.runs]
    evidence = [m.id for m in inputs]
    if ok:
        return _r(name, "passed", f"{len(view.runs)} turn(s) on root session {view.session_id}", evidence)
    return _r(name, "failed", f"runs on sessions {sorted(sessions)}; inputs stored for runs {runs_in_store}", evidence)


_TRIAL = {
    "state_in_every_request": state_in_every_request,
    "window_mismatch_recovered": window_mismatch_recovered,
    "memory_preserved": memory_preserved,
    "fold_readback": fold_readback,
    "compression_readback": compression_readback,
    "same_session": same_session,
}
