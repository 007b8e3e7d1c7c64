"""litellm's re-readings of the harness's messages on OpenAI-format routes, found by comparing the messages the
harness handed litellm with the body litellm built from them (P-80, E-11).

Each is a ``note`` rule of the table (``_rules``) with its source in litellm 1.110.2: an o-series model's
system prompt sent as a user message, DeepSeek's and Moonshot's ``" "`` reasoning_content fill on assistant
messages, Moonshot's user message appended on ``tool_choice="required"``. The turn of each note is the body's
turn it concerns, so the wire panel can tell a note on the state message from one on another message.
"""

from __future__ import annotations

from typing import Any

from ._routes import Route

Hit = tuple[str, int | None, str]
_MOONSHOT_REQUIRED = "Please select a tool to handle the current issue."
_SYSTEM = ("system", "developer")


def rereadings(sent: list[dict[str, Any]], body: dict[str, Any], route: Route, model: str) -> list[Hit]:
    """The notes on how ``body`` re-reads ``sent`` (empty for a body that is not OpenAI-format)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if not messages or "contents" in body or route.name in ("anthropic", "bedrock", "gemini", "vertex_ai"):
        return []
    turned = [m for m in messages if m.get("role") not in _SYSTEM]
    hits: list[Hit] = []
    system_sent = sum(1 for m in sent if m.get("role") in _SYSTEM)
    if system_sent and not any(m.get("role") in _SYSTEM for m in messages):  # litellm's o-series config, by name
        hits.append(("openai-o-series-system-as-user", 0, f"{model}: {system_sent} system message(s) sent as user"))
    fill = {"deepseek": "deepseek-reasoning-content-fill", "moonshot": "moonshot-reasoning-content-fill"}
    if route.name in fill:
        own = [m for m in sent if m.get("role") not in _SYSTEM]
        hits += [(fill[route.name], index, "reasoning_content \" \" added to this assistant message")
                 for index, message in enumerate(turned)
                 if message.get("role") == "assistant" and message.get("reasoning_content") == " "
                 and not (index < len(own) and own[index].get("reasoning_content"))]
    last = turned[-1] if turned else {}
    if (route.name == "moonshot" and last.get("role") == "user" and last.get("content") == _MOONSHOT_REQUIRED
            and not (sent and sent[-1].get("content") == _MOONSHOT_REQUIRED)):
        hits.append(("moonshot-tool-choice-required-message", len(turned) - 1, "the last message is litellm's"))
    return hits
