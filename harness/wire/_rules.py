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
    "unknown": "unknown: no source says what this route makes of it",
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
    routes: tuple[str, ...] = ()
    """The routes (``_routes.RouteName``) whose requests the rule reads; empty: the routes of its formats
    (Anthropic, Bedrock, Gemini and Vertex AI)."""


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
    Rule("bedrock-tool-result-text-mix", ("bedrock_converse",), "rejected",
         "one user turn carries tool results and text, which Bedrock can reject (\"Conversation blocks and tool "
         "result blocks cannot be provided in the same turn\")",
         "AWS Bedrock Converse API error, public reports; litellm merges a tool result and user text", "2026",
         treatment="rejected"),
    # OpenAI-format routes (providers.md Part 2): litellm forwards the messages as built on every one of them (no
    # merge, no reorder, no "prefix" / "partial" / "continue_final_message" added); the provider decides.
    Rule("chat-trailing-assistant-new-turn", ("openai",), "ok",
         "OpenAI's Chat Completions reads a trailing assistant message as a finished earlier message and starts a new "
         "assistant turn after it (no prefill)",
         "shared notes, providers.md Part 2 (openai/ gpt-4.x, gpt-5.x, o-series; azure/ as openai); litellm "
         "openai chat transformation forwards the messages as built", "2026", treatment="new_turn",
         routes=("openai", "azure")),
    Rule("openai-messages-kept", ("openai",), "ok",
         "OpenAI's Chat Completions takes consecutive same-role messages and a user message after a tool result; "
         "each stays a message of its own",
         "shared notes, providers.md Part 2 (openai/, azure/: accepted)", "2026", treatment="own_message",
         routes=("openai", "azure")),
    Rule("openai-o-series-system-as-user", ("openai",), "note",
         "litellm sends every system message to this o-series model as a user message (the cost map does not mark "
         "o1-mini, o3, o3-mini, o4-mini as taking system messages): the system prompt reaches the model with user "
         "authority",
         "litellm 1.110.2 llms/openai/chat/o_series_transformation.py:146-165 (supports_system_messages)", "2026",
         routes=("openai", "azure", "local", "other")),
    Rule("mistral-trailing-assistant-rejected", ("openai",), "rejected",
         "Mistral takes a trailing assistant message only with \"prefix\": true, which the harness does not send: 400 "
         "\"Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant\"",
         "mistral-common's validator (serving mode, last message); shared notes, providers.md Part 2; public reports "
         "(github.com/0xPlaygrounds/rig/issues/708)", "2025-08", treatment="rejected", routes=("mistral",)),
    Rule("mistral-user-after-tool-rejected", ("openai",), "rejected",
         "Mistral refuses a user message right after a tool result: 400 \"Unexpected role 'user' after role 'tool'\"",
         "mistral-common's validator (message order); shared notes, providers.md Part 2 (reports through 2026-08); "
         "github.com/nicholasgriffintn/ai-platform/issues/414", "2026-08", treatment="rejected", routes=("mistral",)),
    Rule("mistral-messages-kept", ("openai",), "ok",
         "Mistral takes consecutive user or assistant messages; each stays a message of its own",
         "shared notes, providers.md Part 2 (mistral/: consecutive user or assistant accepted)", "2026",
         treatment="own_message", routes=("mistral",)),
    Rule("mistral-tool-call-id", ("openai",), "rejected",
         "Mistral takes tool-call ids of exactly 9 letters and digits: 400 \"Tool call id was … but must be a-z, "
         "A-Z, 0-9, with a length of 9.\"",
         "mistral-common's validator (tool call ids); shared notes, providers.md Part 2", "2026", routes=("mistral",)),
    Rule("deepseek-reasoner-trailing-assistant-rejected", ("openai",), "rejected",
         "deepseek-reasoner takes a trailing assistant message only in prefix mode (\"prefix\": true), which the "
         "harness does not send: 400 \"The last message of deepseek-reasoner must be a user message, or an assistant "
         "message with prefix mode on\"",
         "public reports 2025-01 to 2025-04 (github.com/BerriAI/litellm/issues/8090, "
         "github.com/gptme/gptme/issues/467); api-docs.deepseek.com/guides/chat_prefix_completion; shared notes, "
         "providers.md Part 2", "2025",
         treatment="rejected", routes=("deepseek",)),
    Rule("deepseek-trailing-assistant-unknown", ("openai",), "unknown",
         "no source says what this DeepSeek model makes of a trailing assistant message without \"prefix\": true "
         "(with it, a prefill on the beta URL litellm uses)",
         "shared notes, providers.md Part 2 (deepseek-chat: not found)", "2026", treatment="unknown",
         routes=("deepseek",)),
    Rule("deepseek-roles-unknown", ("openai",), "unknown",
         "no source says how current DeepSeek models take consecutive same-role messages or a user message after a "
         "tool result (the R1-era deepseek-reasoner refused successive user or assistant messages)",
         "shared notes, providers.md Part 2 (not found for current models); "
         "github.com/open-webui/open-webui/issues/9266 (2025-02)", "2026", treatment="unknown", routes=("deepseek",)),
    Rule("deepseek-thinking-reasoning-content", ("openai",), "rejected",
         "in thinking mode every assistant message of a tool-calling turn must carry its reasoning_content: 400 \"The "
         "reasoning_content in the thinking mode must be passed back to the API.\"",
         "api-docs.deepseek.com/guides/thinking_mode; litellm 1.110.2 llms/deepseek/chat/transformation.py:91-127",
         "2026", routes=("deepseek",)),
    Rule("deepseek-reasoning-content-fill", ("openai",), "note",
         "litellm fills a missing reasoning_content with \" \" on every assistant message when thinking is requested "
         "explicitly, the harness's derived messages included: the model reads a blank reasoning chain on each",
         "litellm 1.110.2 llms/deepseek/chat/transformation.py:91-127, 320-345", "2026", routes=("deepseek",)),
    Rule("dashscope-trailing-assistant-unknown", ("openai",), "unknown",
         "DashScope (Qwen) makes a trailing assistant message a prefill with \"partial\": true; without it, as the "
         "harness sends it, no source says what it does",
         "shared notes, providers.md Part 2 (dashscope/: not found)", "2026", treatment="unknown",
         routes=("dashscope",)),
    Rule("dashscope-roles-unknown", ("openai",), "unknown",
         "no source says how DashScope takes consecutive same-role messages or a user message after a tool result",
         "shared notes, providers.md Part 2 (dashscope/: not found)", "2026", treatment="unknown",
         routes=("dashscope",)),
    Rule("moonshot-trailing-assistant-unknown", ("openai",), "unknown",
         "Moonshot (Kimi) makes a trailing assistant message a prefill with \"partial\": true; without it, as the "
         "harness sends it, no source says what it does",
         "shared notes, providers.md Part 2 (moonshot/: not found)", "2026", treatment="unknown",
         routes=("moonshot",)),
    Rule("moonshot-roles-unknown", ("openai",), "unknown",
         "no source says how Moonshot takes consecutive same-role messages or a user message after a tool result",
         "shared notes, providers.md Part 2 (moonshot/: not found)", "2026", treatment="unknown",
         routes=("moonshot",)),
    Rule("moonshot-reasoning-content-fill", ("openai",), "note",
         "litellm fills a missing reasoning_content with \" \" on the tool-calling assistant messages of a Kimi "
         "reasoning model (Kimi 400s without it: \"thinking is enabled but reasoning_content is missing in assistant "
         "tool call message\"): the model reads a blank reasoning chain there",
         "litellm 1.110.2 llms/moonshot/chat/transformation.py:162-205; shared notes, providers.md Part 2", "2026",
         routes=("moonshot",)),
    Rule("moonshot-tool-choice-required-message", ("openai",), "note",
         "litellm appends a user message (\"Please select a tool to handle the current issue.\") when tool_choice is "
         "\"required\": the request no longer ends with the harness's last message",
         "litellm 1.110.2 llms/moonshot/chat/transformation.py:221-260; platform.moonshot.ai migrating-from-openai "
         "(tool_choice)", "2026", routes=("moonshot",)),
    Rule("xai-trailing-assistant-unknown", ("openai",), "unknown",
         "no source says what xAI makes of a trailing assistant message (prefill or a new turn)",
         "not found (shared notes, providers.md Part 2 has no xAI row; litellm's xai transformation only strips "
         "message names)", "2026", treatment="unknown", routes=("xai",)),
    Rule("xai-roles-unknown", ("openai",), "unknown",
         "no source says how xAI takes consecutive same-role messages or a user message after a tool result",
         "not found (shared notes, providers.md Part 2 has no xAI row)", "2026", treatment="unknown",
         routes=("xai",)),
    Rule("groq-trailing-assistant-prefill", ("openai",), "prefill",
         "Groq continues a trailing assistant message (assistant message prefilling): the model continues that text",
         "Groq docs, prefilling; shared notes, providers.md Part 2", "2026", treatment="prefill", routes=("groq",)),
    Rule("groq-roles-unknown", ("openai",), "unknown",
         "no source says how Groq takes consecutive same-role messages or a user message after a tool result",
         "shared notes, providers.md Part 2 (groq/: not found)", "2026", treatment="unknown", routes=("groq",)),
    Rule("groq-reasoning-content-rejected", ("openai",), "rejected",
         "Groq refuses reasoning_content on a message of the request with 400",
         "shared notes, providers.md Part 2 (groq/ strips it; openai/ pointed at Groq does not)", "2026",
         routes=("groq",)),
    Rule("openrouter-upstream-merges", ("openai",), "merged",
         "OpenRouter passes the messages to the upstream's own API, which combines consecutive same-role turns (and a "
         "user message after a tool result into the tool result's turn): the state becomes part of another turn",
         "shared notes, providers.md Part 2 (openrouter/: the upstream's rules) and Part 1 (Anthropic combines "
         "consecutive turns; Gemini merges users and models)", "2026", treatment="merged", routes=("openrouter",)),
    Rule("openrouter-upstream-unknown", ("openai",), "unknown",
         "no rule of the table covers this OpenRouter upstream: what it makes of the messages is not known",
         "shared notes, providers.md Part 2 (openrouter/: the upstream's rules)", "2026", treatment="unknown",
         routes=("openrouter",)),
    Rule("gemini-user-content-after-function-response", ("gemini",), "note",
         "a user message right after a function response stays a content of its own (litellm keeps the function "
         "response apart), so the state there is not merged into the tool result's turn as on Anthropic",
         "litellm 1.110.2 gemini transformation.py:789-1033; shared notes, providers.md (Gemini and Vertex: same "
         "bodies)", "2026", treatment="own_message", routes=("gemini", "vertex_ai")),
    Rule("ollama-trailing-assistant-prefill", ("openai",), "prefill",
         "Ollama's chat template leaves a trailing assistant turn open: the model continues that text",
         "shared notes, providers.md Part 2 (Ollama)", "2026", treatment="prefill", routes=("ollama",)),
    Rule("ollama-messages-kept", ("openai",), "ok",
         "Ollama's Go templates render each message as a turn of its own and check no roles (a GGUF Jinja template "
         "can raise)",
         "shared notes, providers.md Part 2 (Ollama)", "2026", treatment="own_message", routes=("ollama",)),
    Rule("ollama-generate-prompt", ("prompt",), "merged",
         "litellm renders every message into one prompt of its own (\"### User:\" / \"### Assistant:\" sections, "
         "consecutive assistant messages run together) for Ollama's /api/generate, which wraps that prompt in the "
         "model's template as one user message: the state is text inside it with no role of its own (ollama_chat/ "
         "sends the messages as built)",
         "litellm 1.110.2 litellm_core_utils/prompt_templates/factory.py:319-376 (ollama_pt); Ollama API docs, "
         "/api/generate (prompt, raw)", "2026", treatment="merged", routes=("ollama",)),
    Rule("vllm-trailing-assistant-new-turn", ("openai",), "ok",
         "vLLM renders a trailing assistant message as a finished message and adds the generation prompt "
         "(add_generation_prompt true, continue_final_message false): a new assistant turn, unless the chat template "
         "refuses the roles (a Jinja error is a 400)",
         "vLLM docs, OpenAI-compatible server (chat completion extra parameters); shared notes, providers.md Part 2",
         "2026", treatment="new_turn", routes=("hosted_vllm",)),
    Rule("vllm-roles-template", ("openai",), "unknown",
         "the model's chat template decides whether vLLM takes consecutive same-role messages or a user message after "
         "a tool result (a Jinja error is a 400): ask the server (/tokenize renders the messages)",
         "shared notes, providers.md Part 2 (vLLM, SGLang)", "2026", treatment="unknown", routes=("hosted_vllm",)),
    Rule("local-server-trailing-assistant", ("openai",), "unknown",
         "a local OpenAI-compatible server decides by its chat template and flags: llama.cpp's server prefills a "
         "trailing assistant message by default and opens a new turn with --no-prefill-assistant, vLLM opens a new "
         "turn; the server was not asked",
         "shared notes, providers.md Part 2 (llama.cpp llama-server, vLLM, SGLang)", "2026", treatment="unknown",
         routes=("local",)),
    Rule("local-server-roles-template", ("openai",), "unknown",
         "a local server's chat template decides whether it takes consecutive same-role messages or a user message "
         "after a tool result (the Gemma, Mistral v0.3 and Devstral templates raise \"Conversation roles must "
         "alternate\"); the server was not asked",
         "shared notes, providers.md Part 2 (llama.cpp llama-server)", "2026", treatment="unknown", routes=("local",)),
    # A local server asked before the run (harness.preflight._server): the verdict is its own rendering.
    Rule("local-template-prefill", ("openai",), "prefill",
         "the local server, asked before the run, renders the request ending inside the trailing assistant message: "
         "the model continues the state text (a prefill)",
         _LOCAL, "2026", treatment="prefill", routes=("local",)),
    Rule("local-template-new-turn", ("openai",), "ok",
         "the local server, asked before the run, renders the trailing assistant message as a finished message "
         "and opens a new assistant turn after it",
         _LOCAL, "2026", treatment="new_turn", routes=("local",)),
    Rule("local-template-own-message", ("openai",), "ok",
         "the local server, asked before the run, renders the state message as a message of its own",
         _LOCAL, "2026", treatment="own_message", routes=("local",)),
    Rule("local-template-merged", ("openai",), "merged",
         "the local server, asked before the run, renders the state message joined to its neighbour without a turn "
         "marker", _LOCAL, "2026", treatment="merged", routes=("local",)),
    Rule("local-template-rejected", ("openai",), "rejected",
         "the local server's chat template, asked before the run, refuses these messages; a template's refusal is "
         "deterministic: every call with them fails the same way",
         _LOCAL, "2026", treatment="rejected", routes=("local",)),
    Rule("local-server-unrendered", ("openai",), "unknown",
         "a local server decides by its chat template, and this one was asked but renders nothing the harness can "
         "read (why: the local server line, said once; report.json localServer): what it makes of the state "
         "message is unknown",
         _LOCAL, "2026", treatment="unknown", routes=("local",)),
    Rule("chat-route-unknown", ("openai",), "unknown",
         "no rule of the table covers this route: the OpenAI-format body is sent as built, and what the server makes "
         "of it is not known",
         "shared notes, providers.md Part 2 (\"not found\" = no source: unknown, not ok)", "2026", treatment="unknown",
         routes=("other",)),
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
