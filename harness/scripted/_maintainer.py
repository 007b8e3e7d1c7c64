"""The scripted maintainer role (E-13): a deterministic checkpoint writer, a function of its request.

Every scripted model answers a maintainer request (a system message starting with the
maintainer tag) with this summary, so ``scripted/<name>`` works as the maintainer too.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.models import MAINTAINER_TAG

from ._types import ScriptedReply

_MAX = re.compile(r"at most (\d+) characters")


def is_maintainer_request(messages: list[dict[str, Any]]) -> bool:
    return bool(messages) and str(messages[0].get("content", "")).startswith(MAINTAINER_TAG)


def _line(message: dict[str, Any]) -> str | None:
    role, kind = message.get("role"), message.get("kind")
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if kind == "tool_call":
        calls = "; ".join(f"{c['name']}({c['arguments']})" for c in message.get("toolCalls", []))
        return f"#{message['index']} {role} called {calls}"
    if not text:
        return None
    return f"#{message['index']} {role}/{kind}: {text[:160]}"


def maintainer_reply(messages: list[dict[str, Any]]) -> ScriptedReply:
    system = str(messages[0].get("content", ""))
    match = _MAX.search(system)
    limit = int(match.group(1)) if match else 3000
    body = json.loads(str(messages[-1].get("content", "{}")))
    lines = [str(body["previousCheckpoint"])] if body.get("previousCheckpoint") else []
    lines += [line for m in body.get("messages", []) if (line := _line(m))]
    text = "\n".join(lines) or "(no history)"
    return ScriptedReply(content=text[:limit], tool_calls=[])
