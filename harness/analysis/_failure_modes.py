"""Why a trial failed: one documented classifier over the recorded answers and calls.

A pure function of recorded data (a trial's runs, check results, tool calls and the request that
produced each final answer), so a rescore of a finished run gives the same modes. The first turn
that failed decides; a trial whose turns all passed is classified by its failed trial checks.
The modes, in the order they are tried on that turn:

``step_limit``        the run reached ``maxSteps`` without a final answer.
``tool_misuse``       the run ended on a streak of failing tool calls (X-32), the stage's tool was
                      not called (or a forbidden one was), or a write went to the wrong window
                      (``memory_preserved`` / ``window_mismatch_recovered`` failed).
``no_answer``         the run completed with an empty answer.
``prefill_returned``  the request ended with an assistant message, the server returned it as the
                      answer's start (llama.cpp treats a trailing assistant turn as prefill) and the
                      model added nothing of its own: the "answer" is the host's own message. With a
                      continuation, the continuation alone is classified (modes below). A model that
                      wrote that text itself (more output tokens than a returned prefill leaves room
                      for: a new turn that copies the state) is a ``state_echo``.
``tool_call_as_text`` the answer is a tool call written as text: ``[quote_calculate] {...}``,
                      ``{"name": ..., "arguments": ...}``, ``<tool_call>`` blocks (the serving stack
                      did not parse it, or the model imitates the host's tag lines).
``state_echo``        the answer reproduces or continues a derived message of its request (the
                      ``context_state`` block, the header, a fold) or a tool's description: it
                      starts with a derived tag, repeats their JSON keys, or most of it is copied.
``truncated``         the answer was cut at the output cap (finish reason ``length``).
``wrong_answer``      a complete, on-topic answer that an answer check rejected.
``not_exercised``     no check failed, but a check the stage requires never had its precondition
                      (no fold, no compression, nothing stored): the evidence is missing, not contrary.
``other``             anything else (a host check failed, the request exceeded the capacity, …).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

from harness.models import looks_like_unparsed_tool_call

FailureMode = Literal["state_echo", "tool_call_as_text", "truncated", "wrong_answer", "tool_misuse", "no_answer",
                      "prefill_returned", "step_limit", "not_exercised", "other"]
FAILURE_MODES: tuple[FailureMode, ...] = ("state_echo", "tool_call_as_text", "truncated", "wrong_answer",
                                          "tool_misuse", "no_answer", "prefill_returned", "step_limit",
                                          "not_exercised", "other")
DERIVED_TYPES = ("context_state", "context_header", "context_fold")
TOOL_CHECKS = frozenset({"tool_called", "tool_not_called"})
WRONG_WINDOW_CHECKS = frozenset({"memory_preserved", "window_mismatch_recovered"})

_TAG = re.compile(r"^\s*\[([A-Za-z_][\w\-]*)\]")
_KEY = re.compile(r'"([A-Za-z_]\w*)"\s*:')
_NGRAM = 8
ECHO_SHARE = 0.6
"""An answer whose character 8-grams are at least this share copied from one derived text is an echo."""
ECHO_KEYS = 2
"""An answer that writes this many distinct JSON keys of a derived message continues its JSON."""


@dataclass(frozen=True)
class CallEvidence:
    name: str
    success: bool
    error_code: str | None = None


@dataclass(frozen=True)
class TurnEvidence:
    """One turn (run) of a trial as recorded."""

    turn: int
    answer: str | None
    status: str
    """The engine's run status: completed, step_limit, error, capacity_exceeded, …"""
    error_class: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    """Of the run's last agent call; ``length`` means the answer was cut at the output cap."""
    failed_checks: tuple[tuple[str, str], ...] = ()
    """(check name, detail) of this turn's failed checks."""
    calls: tuple[CallEvidence, ...] = ()
    derived: tuple[tuple[str, str], ...] = ()
    """(type, text) of the derived messages in the request that produced the answer."""
    tools: tuple[tuple[str, str], ...] = ()
    """(name, description) of the tools that request offered."""
    prefill: tuple[str, str] | None = None
    """(source type, text) of that request's last message when it was an assistant message (a prefill
    on servers that continue it); None when the request ended with a user or tool message."""
    output_tokens: int | None = None
    """What the server reported the model produced for that answer."""


@dataclass(frozen=True)
class TrialEvidence:
    turns: tuple[TurnEvidence, ...]
    failed_trial_checks: tuple[tuple[str, str], ...] = ()
    not_exercised: tuple[tuple[str, str], ...] = ()
    """(check name, detail) of required checks whose precondition never occurred."""


@dataclass(frozen=True)
class Diagnosis:
    mode: FailureMode
    detail: str
    turn: int | None = None
    echoed: str | None = field(default=None)
    """For ``state_echo``: what was echoed (``context_state``, ``tool:quote_calculate``, …)."""


def classify_failure(trial: TrialEvidence) -> Diagnosis:
    """The failure mode of a failed trial (see the module docstring for the order)."""
    for turn in trial.turns:
        if turn.failed_checks or turn.status != "completed":
            return _classify_turn(turn)
    if trial.failed_trial_checks:
        names = [name for name, _ in trial.failed_trial_checks]
        text = "; ".join(f"{name}: {detail}" for name, detail in trial.failed_trial_checks)
        if any(name in WRONG_WINDOW_CHECKS for name in names):
            return Diagnosis("tool_misuse", f"a window write went wrong: {text}")
        return Diagnosis("other", f"a trial check failed: {text}")
    if trial.not_exercised:
        text = "; ".join(f"{name}: {detail}" for name, detail in trial.not_exercised)
        return Diagnosis("not_exercised", f"required check(s) not exercised: {text}")
    return Diagnosis("other", "no check failed and no turn failed")


def _classify_turn(turn: TurnEvidence) -> Diagnosis:
    n = turn.turn
    checks = "; ".join(f"{name}: {detail}" for name, detail in turn.failed_checks)
    if turn.status == "step_limit":
        return Diagnosis("step_limit", f"turn {n}: {turn.error or 'no final answer within maxSteps'}", n)
    if turn.status == "error" and turn.error_class == "model":
        failing = [c.error_code or "failed" for c in turn.calls if not c.success][-3:]
        return Diagnosis("tool_misuse", f"turn {n}: {turn.error} (last errors: {', '.join(failing)})", n)
    if turn.status != "completed":
        return Diagnosis("other", f"turn {n}: run ended {turn.status}" + (f": {turn.error}" if turn.error else ""), n)
    answer = (turn.answer or "").strip()
    cut = turn.finish_reason == "length"
    own = model_text(turn)
    if own is not None and not own:
        kind, _ = turn.prefill or ("", "")
        tokens = "" if turn.output_tokens is None else f" ({turn.output_tokens} output token(s))"
        return Diagnosis("prefill_returned", f"turn {n}: the model produced nothing after the prefill{tokens}: the "
                         f"server returned the request's trailing assistant message ({_describe(kind)}) as the "
                         "start of the answer, so the recorded answer is the host's own message", n)
    if own is not None:  # classify what the model added after the returned prefill
        turn = replace(turn, answer=own, prefill=None)
        answer = own
    if not answer:
        if cut:
            return Diagnosis("truncated", f"turn {n}: the output cap was reached before any answer text", n)
        return Diagnosis("no_answer", f"turn {n}: the run completed with an empty answer", n)
    shape = answer_shape(turn)
    if shape is not None and shape.mode == "tool_call_as_text":
        return Diagnosis("tool_call_as_text", f"turn {n}: the answer is a tool call written as text: "
                         f"{_quote(answer)}", n)
    echoed = shape.echoed if shape is not None else None
    if echoed is not None:
        also = " (and was cut at the output cap)" if cut else ""
        return Diagnosis("state_echo", f"turn {n}: the answer reproduces {_describe(echoed)}{also}: "
                         f"{_quote(answer)}", n, echoed)
    if cut:
        return Diagnosis("truncated", f"turn {n}: the answer was cut at the output cap (finish reason length): "
                         f"{_quote(answer)}", n)
    if any(name in TOOL_CHECKS for name, _ in turn.failed_checks):
        called = sorted({c.name for c in turn.calls})
        return Diagnosis("tool_misuse", f"turn {n}: {checks}; called {', '.join(called) or 'no tool'}", n)
    if turn.failed_checks:
        return Diagnosis("wrong_answer", f"turn {n}: {checks}: {_quote(answer)}", n)
    return Diagnosis("other", f"turn {n}: no check failed", n)  # pragma: no cover - callers pass failing turns


_STOP_TOKENS = 2
"""Output tokens a server counts beyond the text it returns (the end-of-turn token and its like)."""


def model_text(turn: TurnEvidence) -> str | None:
    """What the model itself wrote when the answer starts with the request's trailing assistant message
    returned as prefill (stripped; "" when it added nothing); None when the answer does not start so, or
    when the model wrote that text itself: a server counts only generated tokens, so more output tokens
    than the bytes after the prefill text can hold (plus an end-of-turn token) mean the model generated
    the trailing message's text in a new turn (a server without prefill, ``--no-prefill-assistant``: the
    model copied the state block, 118 output tokens, where a returned prefill took 1)."""
    if turn.prefill is None or not turn.prefill[1].strip():
        return None
    answer, prefill = (turn.answer or "").strip(), turn.prefill[1].strip()
    if not answer.startswith(prefill):
        return None
    own = answer[len(prefill):].strip()
    if turn.output_tokens is not None and turn.output_tokens > len(own.encode("utf-8")) + _STOP_TOKENS:
        return None  # the model wrote the prefill's text: not returned by the server
    return own


def answer_shape(turn: TurnEvidence) -> Diagnosis | None:
    """Whether a turn's answer *looks* like a failure whatever its checks say: a tool call written as
    text, or an echo of a derived message or a tool description (``mode``, ``echoed``); None for a
    plain answer. Used on failed turns (their mode) and on passed ones (a pass an answer check let
    through although the answer has a failure's shape: ``passShape``). After a returned prefill only
    the model's own text is read."""
    own = model_text(turn)
    answer = own if own is not None else (turn.answer or "").strip()
    if not answer:
        return None
    names = [name for name, _ in turn.tools]
    if looks_like_unparsed_tool_call(answer, names or None):
        return Diagnosis("tool_call_as_text", f"turn {turn.turn}: a tool call written as text: {_quote(answer)}",
                         turn.turn)
    echoed = echo_source(answer, turn.derived, turn.tools)
    if echoed is not None:
        return Diagnosis("state_echo", f"turn {turn.turn}: reproduces {_describe(echoed)}: {_quote(answer)}",
                         turn.turn, echoed)
    return None


def pass_shape(trial: TrialEvidence) -> Diagnosis | None:
    """For a passed trial: the first turn whose answer has a failure's *unmistakable* shape: a tool
    call written as text, a derived tag line or a tool's tag at its start, or a derived message's JSON
    keys. Mere overlap with a derived text does not count here: the header, a fold and the state carry
    the model's own memory, summaries and hand-over, and an answer may rightly repeat them."""
    for turn in trial.turns:
        shape = answer_shape(turn)
        if shape is None:
            continue
        own = model_text(turn)
        answer = own if own is not None else (turn.answer or "").strip()
        tag = _TAG.match(answer)
        keys = set(_KEY.findall(answer))
        derived_keys = any(len(keys & _derived_keys(text)) >= ECHO_KEYS for _, text in turn.derived)
        if shape.mode == "tool_call_as_text" or tag is not None or derived_keys:
            return shape
    return None


def echo_source(answer: str, derived: Sequence[tuple[str, str]], tools: Sequence[tuple[str, str]]) -> str | None:
    """What ``answer`` reproduces or continues, or None: a derived type or ``tool:<name>``."""
    tag = _TAG.match(answer)
    if tag and tag.group(1) in DERIVED_TYPES:
        return tag.group(1)
    keys = set(_KEY.findall(answer))
    for kind, text in derived:
        if len(keys & _derived_keys(text)) >= ECHO_KEYS:
            return kind
    descriptions = {name: text for name, text in tools if text}
    sources = [*derived, *((f"tool:{n}", d) for n, d in descriptions.items())]
    grams = _grams(answer)
    shares = sorted(((len(grams & _source_grams(text)) / len(grams), kind) for kind, text in sources),
                    reverse=True) if grams and sources else []
    best_share, best = shares[0] if shares else (0.0, None)
    if best_share >= ECHO_SHARE:
        return best
    if tag and tag.group(1) in descriptions:  # "[quote_calculate] Compute a quote: …" (a call would be JSON)
        return best if best_share >= ECHO_SHARE / 2 else f"tool:{tag.group(1)}"
    return None


def _body(text: str) -> str:
    start = text.find("\n{")
    if start < 0:
        return ""
    try:
        return json.dumps(json.JSONDecoder().raw_decode(text[start + 1:])[0])
    except ValueError:
        return text[start + 1:]


def _grams(text: str) -> set[str]:
    squeezed = re.sub(r"\s+", " ", text)
    return {squeezed[i : i + _NGRAM] for i in range(len(squeezed) - _NGRAM + 1)}


@lru_cache(maxsize=1024)
def _source_grams(text: str) -> frozenset[str]:
    """``_grams`` of a derived message or a tool description, once per text: the tools' are the same in every
    request of a run, a state or header text recurs across a trial's steps (Q-3)."""
    return frozenset(_grams(text))


@lru_cache(maxsize=1024)
def _derived_keys(text: str) -> frozenset[str]:
    """The JSON keys a derived message's body writes (``id``, ``name`` and ``status`` aside), once per text."""
    return frozenset(_KEY.findall(_body(text))) - {"id", "name", "status"}


def _describe(echoed: str) -> str:
    if echoed.startswith("tool:"):
        return f"the description of tool {echoed[5:]}"
    return {"context_state": "the context_state block", "context_header": "the context header",
            "context_fold": "a fold message"}.get(echoed, echoed)


def _quote(answer: str, limit: int = 120) -> str:
    flat = " ".join(answer.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def mode_counts(modes: Sequence[str | None]) -> dict[str, int]:
    """mode → number of trials, in the order of ``FAILURE_MODES`` (only modes that occur)."""
    found = [m for m in modes if m]
    return {m: found.count(m) for m in FAILURE_MODES if m in found}
