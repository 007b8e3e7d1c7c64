"""Deterministic refusals as the servers word them: context-length and chat-template errors (set-up
errors of the experiment, never retried).

Chat templates: a model's Jinja chat template may refuse a message list (``raise_exception``: Gemma,
Mistral v0.3 and Devstral templates require alternating user/assistant roles). The same messages raise
the same error on every attempt, whatever the status the server answers with: llama.cpp's server
answers HTTP 500 ``Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...``
(the template's exception is a ``std::exception``, server.cpp ``ex_wrapper``), or, where its automatic
chat parser renders the template first, HTTP 400 ``Unable to generate parser for this template.
Automatic parser generation failed: Jinja Exception: …`` (llama.cpp as vendored by llama-cpp-python
0.3.36, common/chat.cpp); vLLM answers 400 with the template's message.

Context length:

litellm maps OpenAI's ``context_length_exceeded`` to ``ContextWindowExceededError``, but not every
server's wording: llama.cpp's server answers HTTP 400 with ``"type": "exceed_context_size_error"``
and "request (N tokens) exceeds the available context size (M tokens), try increasing it", which
litellm passes on as a plain ``BadRequestError`` (or, behind some proxies, an ``APIError``). The
phrases below are matched in any error's text, so every such refusal is classified alike.
"""

from __future__ import annotations

import re

_PHRASES = re.compile(
    r"exceed_context_size_error|exceeds the available context size|is larger than the max context size"
    r"|maximum context length|context_length_exceeded|context length exceeded|context window exceeded"
    r"|contextwindowexceedederror|prompt is too long|input is too long for the model",
    re.IGNORECASE,
)
# (pattern, group of the prompt size, group of the context size)
_SIZES: tuple[tuple[re.Pattern[str], int | None, int | None], ...] = (
    # llama.cpp: "request (9000 tokens) exceeds the available context size (2048 tokens)"
    (re.compile(r"\((\d+) tokens\) exceeds the available context size \((\d+) tokens\)"), 1, 2),
    # llama.cpp: "input (9000 tokens) is larger than the max context size (2048 tokens)"
    (re.compile(r"\((\d+) tokens\) is larger than the max context size \((\d+) tokens\)"), 1, 2),
    # OpenAI / vLLM: "maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"
    # (vLLM: "However, you requested 9000 tokens (8000 in the messages, 1000 in the completion)")
    (re.compile(r"maximum context length is (\d+) tokens?\.?\s*However, (?:your messages resulted in|you "
                r"requested) (\d+) tokens", re.IGNORECASE), 2, 1),
    (re.compile(r"maximum context length is (\d+)", re.IGNORECASE), None, 1),
)
_FIELDS = (re.compile(r'"?n_prompt_tokens"?\s*[:=]\s*(\d+)'), re.compile(r'"?n_ctx"?\s*[:=]\s*(\d+)'))


_TEMPLATE = re.compile(
    r"jinja exception|jinja2\.exceptions|templateerror|error calling raise_exception"
    r"|unable to generate parser for this template|this custom template is not supported"
    r"|conversation roles must alternate",
    re.IGNORECASE,
)


def is_template_refusal(text: str) -> bool:
    """True when an error's text is a chat template's refusal of the messages (deterministic)."""
    return bool(_TEMPLATE.search(text))


def is_context_refusal(text: str) -> bool:
    """True when an error's text says the request does not fit the model's context."""
    return bool(_PHRASES.search(text))


def context_sizes(text: str) -> tuple[int | None, int | None]:
    """``(prompt tokens, context tokens)`` as the server stated them, each None when not stated."""
    for pattern, prompt_group, context_group in _SIZES:
        match = pattern.search(text)
        if match:
            prompt = int(match.group(prompt_group)) if prompt_group else None
            context = int(match.group(context_group)) if context_group else None
            return prompt, context
    prompt_m, context_m = (p.search(text) for p in _FIELDS)
    return (int(prompt_m.group(1)) if prompt_m else None, int(context_m.group(1)) if context_m else None)
