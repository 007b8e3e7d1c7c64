"""The provider rules the preflight applies to a built body: one table, each rule with its source.

Providers change these rules, so they are data: what a rule says, where it was read and when. Model
names decide only *which model* a rule concerns (``claude_version``, ``gemini_version``); whether
it applies to a request is decided from the body litellm built (``_preflight``). Facts about
litellm's transformations are from litellm 1.110.2's source (shared notes, providers.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

VerdictKind = Literal["ok", "merged", "note", "prefill", "unknown", "rejected"]
"""Worst last: ``rejected`` the provider answers 400; ``prefill`` the request changes meaning (the
model continues the trailing assistant text); ``unknown`` no rule says what this model does;
``note`` / ``merged`` the request is sent as is but reads differently from the harness's messages."""
SEVERITY: dict[VerdictKind, int] = {"ok": 0, "merged": 1, "note": 2, "prefill": 3, "unknown": 4, "rejected": 5}

Treatment = Literal["own_message", "merged", "prefill", "new_turn", "rejected", "unknown"]
"""What a route makes of a group's ``context_state`` message (P-71, P-80), the one vocabulary of the preflight,
the dry run, report.json and the local servers' rendering: ``own_message`` it reaches the model as its own
message, as built; ``merged`` it becomes part of another turn (the detail names the turn and its blocks);
``prefill`` the request ends inside it and the model continues it; ``new_turn`` it is a finished message and the
model answers in a new assistant turn after it; ``rejected`` the provider refuses the request (the detail quotes
the error it returns); ``unknown`` no rule of the table says what this route does with it."""
TREATMENTS: dict[Treatment, str] = {
    "own_message": "its own message, as built",
    "merged": "merged into another turn",
    "prefill": "a prefill the model continues",
    "new_turn": "a finished message followed by a new assistant turn",
    "rejected": "rejected by the provider",
    "unknown": "unknown: no rule covers this route",
}
assert tuple(TREATMENTS) == get_args(Treatment)


@dataclass(frozen=True)
class Rule:
    id: str
    formats: tuple[str, ...]
    """Wire formats the rule reads (``_turns.WireFormat``)."""
    kind: VerdictKind
    says: str
    source: str
    date: str
    treatment: Treatment | None = None
    """What the rule makes of the state message when it concerns the state's turn (null: it says nothing
    about the state's treatment, e.g. a ``note`` on litellm's re-reading of another message)."""


_ANTHROPIC_LIKE = ("anthropic", "bedrock_converse")
_LITELLM = "litellm 1.110.2 source (shared notes, providers.md)"
_LOCAL = ("the server's own rendering of the request, asked before the run: llama.cpp POST /apply-template (the chat "
          "path without inference, tools/server/server-context.cpp; a trailing assistant message is a prefill unless "
          "--no-prefill-assistant), vLLM POST /tokenize + /detokenize")
RULES: tuple[Rule, ...] = (
    Rule("bedrock-first-message-user", ("bedrock_converse",), "rejected",
         "Bedrock rejects a conversation whose first message is not a user message "
         "(\"A conversation must start with a user message\"); litellm sends the assistant-first list as is",
         "AWS Bedrock Converse API error, public reports; litellm factory.py bedrock converse", "2026",
         treatment="rejected"),
    Rule("anthropic-first-message-assistant", ("anthropic",), "ok",
         "Anthropic accepts a first assistant message (sent as is, nothing inserted)",
         "Anthropic Messages API docs dropped \"first message must use the user role\"; litellm factory.py:3007-3455",
         "2024-10-22"),
    Rule("consecutive-roles-merged", ("anthropic", "gemini", "bedrock_converse"), "merged",
         "litellm merges consecutive same-role messages into one turn: a derived message reaches the model as "
         "part of another turn, not as a message of its own",
         f"{_LITELLM}: factory.py:3069-3185 (Anthropic), gemini transformation.py:789-1033, bedrock converse", "2026",
         treatment="merged"),
    Rule("claude-trailing-assistant-prefill", _ANTHROPIC_LIKE, "prefill",
         "a trailing assistant turn is an Anthropic prefill: the model continues that text instead of answering",
         "Anthropic docs, prefill Claude's response; litellm factory.py:3446-3452 sends it (rstripped)", "2026",
         treatment="prefill"),
    Rule("claude-4.6-no-prefill", _ANTHROPIC_LIKE, "rejected",
         "this Claude model (4.6 or later) takes no assistant prefill: 400 \"This model does not support assistant "
         "message prefill\"",
         "Anthropic API, Claude Opus 4.6 / Sonnet 4.6 and later (public reports)", "2026", treatment="rejected"),
    Rule("claude-thinking-no-prefill", _ANTHROPIC_LIKE, "rejected",
         "with extended thinking a request may not end with an assistant turn (no prefill with thinking, any model)",
         "Anthropic docs, extended thinking: feature compatibility", "2026", treatment="rejected"),
    Rule("claude-thinking-budget-below-max-tokens", ("anthropic",), "rejected",
         "thinking.budget_tokens must be below max_tokens: 400 otherwise (litellm raises max_tokens only when "
         "it is unset)",
         "Anthropic docs, extended thinking (max_tokens); litellm anthropic transformation.py:1714-1778", "2026",
         treatment="rejected"),
    Rule("claude-thinking-tool-turn", _ANTHROPIC_LIKE, "rejected",
         "with thinking on, the assistant turn of an unfinished tool loop must start with its thinking block "
         "(signature kept): 400 otherwise; litellm drops thinking blocks without a signature",
         "Anthropic docs, extended thinking with tool use (preserving thinking blocks); litellm factory.py:3197, "
         "3355; AWS Converse: \"You must submit the signature in subsequent Converse requests\"", "2026",
         treatment="rejected"),
    Rule("gemini-trailing-model-prefill", ("gemini",), "prefill",
         "a trailing model turn is taken as prefill by this Gemini model (2.x, 3, 3.1, 3.5 Flash)",
         "LibreChat-AI/agents PR 323 (verified live: gemini-2.5-flash and gemini-3.5-flash 200); pipecat PR 5821 "
         "(prefill patterns gemini-2., gemini-3-, gemini-3.1-)", "2026-07-21", treatment="prefill"),
    Rule("gemini-trailing-model-rejected", ("gemini",), "rejected",
         "this Gemini model (3.5 Flash-Lite, 3.6 and later) rejects a trailing model turn: 400 \"Requests ending "
         "with a model turn are not supported\"",
         "ai.google.dev/gemini-api/docs/latest-model (\"Starting with Gemini 3.6 Flash and Gemini 3.5 Flash-Lite "
         "... prefilling model turns is no longer supported\"); LibreChat-AI/agents PRs 323, 412", "2026-07-21",
         treatment="rejected"),
    Rule("gemini-trailing-model-unknown", ("gemini",), "unknown",
         "a trailing model turn is sent as is; no report says whether this model takes it as prefill or rejects it",
         "shared notes, providers.md", "2026", treatment="unknown"),
    Rule("gemini-function-response-text-mix", ("gemini",), "rejected",
         "one content mixes a function response with user text, which Vertex rejects with 400",
         "shared notes, providers.md (litellm keeps a function response a content of its own)", "2026",
         treatment="rejected"),
    Rule("gemini-3-signature-placeholder", ("gemini",), "note",
         "a function call of this Gemini 3 request carries litellm's skip_thought_signature_validator placeholder "
         "instead of the model's own thought signature (Google: \"will negatively impact model performance\")",
         "litellm factory.py:1332-1346; ai.google.dev/gemini-api/docs/thought-signatures (FAQ)", "2026"),
    Rule("chat-trailing-assistant-new-turn", ("openai",), "ok",
         "an OpenAI-style chat API reads a trailing assistant message as an earlier assistant message and starts "
         "a new assistant turn after it",
         "shared notes, litellm.md (provider behaviour that bears on placement); litellm forwards chat messages as "
         "they are", "2026", treatment="new_turn"),
    Rule("local-server-trailing-assistant", ("openai",), "unknown",
         "a local OpenAI-compatible server decides by its chat template: llama.cpp's server treats a trailing "
         "assistant message as a prefill, most chat templates start a new turn",
         "shared notes, litellm.md (provider behaviour that bears on placement)", "2026", treatment="unknown"),
    # A local server asked before the run (harness.preflight._server): the verdict is its own rendering.
    Rule("local-template-prefill", ("openai",), "prefill",
         "the local server, asked before the run, renders the request ending inside the trailing assistant message: "
         "the model continues the state text (a prefill)",
         _LOCAL, "2026", treatment="prefill"),
    Rule("local-template-new-turn", ("openai",), "ok",
         "the local server, asked before the run, renders the trailing assistant message as a finished message "
         "and opens a new assistant turn after it",
         _LOCAL, "2026", treatment="new_turn"),
    Rule("local-template-own-message", ("openai",), "ok",
         "the local server, asked before the run, renders the state message as a message of its own",
         _LOCAL, "2026", treatment="own_message"),
    Rule("local-template-merged", ("openai",), "merged",
         "the local server, asked before the run, renders the state message joined to its neighbour without a turn "
         "marker", _LOCAL, "2026", treatment="merged"),
    Rule("local-template-rejected", ("openai",), "rejected",
         "the local server's chat template, asked before the run, refuses these messages; a template's refusal is "
         "deterministic: every call with them fails the same way",
         _LOCAL, "2026", treatment="rejected"),
    Rule("local-server-unrendered", ("openai",), "unknown",
         "a local server decides by its chat template, and this one was asked but renders nothing the harness can "
         "read (why: the local server line, said once; report.json localServer): what it makes of the state "
         "message is unknown",
         _LOCAL, "2026", treatment="unknown"),
    Rule("bedrock-tool-result-text-mix", ("bedrock_converse",), "rejected",
         "one user turn carries tool results and text, which Bedrock can reject (\"Conversation blocks and tool "
         "result blocks cannot be provided in the same turn\")",
         "AWS Bedrock Converse API error, public reports; litellm merges a tool result and user text", "2026",
         treatment="rejected"),
)
RULE_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

_CLAUDE = re.compile(r"claude-(?:(?:opus|sonnet|haiku)-)?(\d+)(?:[-.](\d{1,2})(?!\d))?(?!\d)")
_GEMINI = re.compile(r"gemini-(\d+)(?:\.(\d+))?-([a-z]+(?:-lite)?)")


def claude_version(model: str) -> tuple[int, int] | None:
    """``claude-opus-4-6`` → (4, 6); ``claude-sonnet-4-20250514`` → (4, 0); ``claude-3-5-sonnet`` → (3, 5)."""
    match = _CLAUDE.search(model.lower())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def gemini_version(model: str) -> tuple[int, int, str] | None:
    """``gemini-3.5-flash-lite`` → (3, 5, "flash-lite"); ``gemini-3-pro-preview`` → (3, 0, "pro")."""
    match = _GEMINI.search(model.lower())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0), match.group(3)


def claude_takes_prefill(model: str) -> bool | None:
    """False for Claude 4.6 and later, True before, None when the name is no Claude model."""
    version = claude_version(model)
    return None if version is None else version < (4, 6)


def gemini_takes_trailing_model_turn(model: str) -> bool | None:
    """True for the releases before the change (2.x, 3, 3.1, 3.5 Flash), False for 3.5 Flash-Lite and every
    release from 3.6 on ("and all future Gemini model releases"), None when the name says nothing."""
    version = gemini_version(model)
    if version is None:
        return None
    major, minor, family = version
    if (major, minor) >= (3, 6) or ((major, minor) == (3, 5) and family == "flash-lite"):
        return False
    if (major, minor) <= (3, 1) or ((major, minor) == (3, 5) and family == "flash"):
        return True
    return None
