"""A provider body read as the provider's turns: who speaks, and what each turn is made of.

Five body shapes, as litellm 1.110.2 builds them: Anthropic Messages (``messages[].role`` /
``content[]`` typed blocks), Gemini generateContent (``contents[].role`` / ``parts[]``), Bedrock
Converse (``messages[].role`` / ``content[]`` blocks keyed ``text``, ``toolUse``, ``toolResult``,
``reasoningContent``), OpenAI chat (``messages``, one turn each) and a prompt litellm renders itself
(``prompt``: Ollama's /api/generate, ``### User:`` / ``### Assistant:`` sections), which the server
reads as one user message. The system prompt is not a turn
anywhere (Anthropic ``system``, Gemini ``system_instruction``, Bedrock ``system``, OpenAI ``system``
messages).

Each block gets the label the harness gives its origin: a derived message's tag line
(``[context_header]``, ``[context_state]``, ``[context_fold]``, docs/design.md "Derived message
formats") names it ``header``, ``state``, ``fold``; other text is ``user input`` or ``assistant
text`` by the turn's speaker; then ``tool call``, ``tool result``, ``thinking``, ``other``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

WireFormat = Literal["anthropic", "gemini", "bedrock_converse", "openai", "prompt"]
Label = Literal["header", "state", "fold", "user input", "assistant text", "tool call", "tool result",
                "thinking", "other"]
_TAG = re.compile(r"^\[(context_header|context_state|context_fold)\]")
_TAG_LABEL: dict[str, Label] = {"context_header": "header", "context_state": "state", "context_fold": "fold"}
_CONVERSE_KEYS = ("toolUse", "toolResult", "reasoningContent", "cachePoint")


@dataclass(frozen=True)
class Turn:
    """One turn as the provider receives it. ``role`` is the provider's word (``model`` on Gemini);
    ``speaker`` is ``user``, ``assistant`` or ``tool`` (an OpenAI tool message) on every provider."""

    role: str
    speaker: str
    blocks: tuple[Label, ...]


def wire_format(body: dict[str, Any]) -> WireFormat:
    """Which provider shape a body has, from the body alone."""
    if "contents" in body:
        return "gemini"
    if isinstance(body.get("prompt"), str) and "messages" not in body:
        return "prompt"
    if any(k in body for k in ("inferenceConfig", "toolConfig", "additionalModelRequestFields")):
        return "bedrock_converse"
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if any(m.get("role") in ("system", "developer", "tool") or "tool_calls" in m or isinstance(m.get("content"), str)
           for m in messages):
        return "openai"
    blocks = [b for m in messages for b in (m.get("content") or []) if isinstance(b, dict)]
    if blocks and all("type" not in b for b in blocks) and any(
            "text" in b or any(k in b for k in _CONVERSE_KEYS) for b in blocks):
        return "bedrock_converse"
    return "anthropic"


def text_label(text: str, speaker: str) -> Label:
    match = _TAG.match(text)
    if match:
        return _TAG_LABEL[match.group(1)]
    return "user input" if speaker == "user" else "assistant text"


def turns(body: dict[str, Any], fmt: WireFormat | None = None) -> list[Turn]:
    """The body's turns in order (system prompt excluded)."""
    fmt = fmt or wire_format(body)
    if fmt == "gemini":
        return [_gemini_turn(c) for c in body.get("contents") or [] if isinstance(c, dict)]
    if fmt == "prompt":
        return _prompt_turns(str(body.get("prompt") or ""))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if fmt == "openai":
        return [_openai_turn(m) for m in messages if m.get("role") not in ("system", "developer")]
    read = _anthropic_block if fmt == "anthropic" else _converse_block
    out = []
    for message in messages:
        role = str(message.get("role"))
        speaker = "assistant" if role == "assistant" else "user"
        content = message.get("content")
        items = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        labels = tuple(label for b in items if isinstance(b, dict) and (label := read(b, speaker)) is not None)
        out.append(Turn(role, speaker, labels))
    return out


def _anthropic_block(block: dict[str, Any], speaker: str) -> Label | None:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text") or "")
        return text_label(text, speaker) if text.strip() else None
    mapping: dict[str, Label] = {"tool_use": "tool call", "tool_result": "tool result", "thinking": "thinking",
                                 "redacted_thinking": "thinking"}
    return mapping.get(str(kind), "other")


def _converse_block(block: dict[str, Any], speaker: str) -> Label | None:
    if "text" in block:
        text = str(block.get("text") or "")
        return text_label(text, speaker) if text.strip() else None
    if "cachePoint" in block:
        return None  # a cache marker, not content
    mapping: dict[str, Label] = {"toolUse": "tool call", "toolResult": "tool result", "reasoningContent": "thinking"}
    return next((label for key, label in mapping.items() if key in block), "other")


def _gemini_turn(content: dict[str, Any]) -> Turn:
    role = str(content.get("role") or "user")
    speaker = "assistant" if role == "model" else "user"
    labels: list[Label] = []
    for part in content.get("parts") or []:
        if not isinstance(part, dict):
            continue
        if "function_call" in part or "functionCall" in part:
            labels.append("tool call")
        elif "function_response" in part or "functionResponse" in part:
            labels.append("tool result")
        elif part.get("thought") is True:
            labels.append("thinking")
        elif "text" in part:
            text = str(part.get("text") or "")
            if text.strip():
                labels.append(text_label(text, speaker))
        else:
            labels.append("other")
    return Turn(role, speaker, tuple(labels))


_SECTION = re.compile(r"^### (System|User|Assistant):\n", re.MULTILINE)
_TAG_ANYWHERE = re.compile(r"\[(context_header|context_state|context_fold)\]")


def _prompt_turns(prompt: str) -> list[Turn]:
    """A rendered prompt is one user message to the server; its blocks are what its sections carry: the text
    before a section's first tag is the speaker's own, each tag a derived message (consecutive assistant
    messages run together in one section, so text after a tag is read as the derived message's)."""
    labels: list[Label] = []
    pieces = _SECTION.split(prompt)
    for role, text in zip(pieces[1::2], pieces[2::2], strict=False):
        if role == "System":
            continue
        first = _TAG_ANYWHERE.search(text)
        if (text[:first.start()] if first else text).strip():
            labels.append("user input" if role == "User" else "assistant text")
        labels += [_TAG_LABEL[t] for t in _TAG_ANYWHERE.findall(text)]
    return [Turn("user", "user", tuple(labels))] if labels else []


def _openai_turn(message: dict[str, Any]) -> Turn:
    role = str(message.get("role"))
    if role == "tool":
        return Turn(role, "tool", ("tool result",))
    speaker = "assistant" if role == "assistant" else "user"
    content = message.get("content")
    if isinstance(content, list):
        text = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    else:
        text = str(content or "")
    labels: list[Label] = [text_label(text, speaker)] if text.strip() else []
    labels += ["tool call"] * len(message.get("tool_calls") or [])
    return Turn(role, speaker, tuple(labels))
