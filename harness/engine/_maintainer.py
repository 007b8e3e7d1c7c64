"""The maintainer role (E-13): a model asked for a new checkpoint, one page at a time (P-51)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from harness.models import MAINTAINER_TAG, ModelOutput, ModelRequest
from protocols._maintenance import MaintenanceRequest

MAINTAINER_PROMPT = (
    f"{MAINTAINER_TAG} You are the host's context maintainer. Write the new checkpoint of one window: a faithful "
    "summary of the previous checkpoint plus the raw messages given, keeping goals, decisions, numbers, ids, dates "
    "and open items, dropping tool noise. Answer with the checkpoint text only, at most {max_characters} characters."
)


_KEEP = ("index", "id", "windowId", "role", "kind", "content", "toolCalls", "toolCallId")
"""What the maintainer reads of a raw message: its content and place, not the run bookkeeping (run ids,
frozen views), which says nothing about the work and would make identical histories differ."""


def maintenance_messages(request: MaintenanceRequest) -> list[dict[str, str]]:
    page = [{k: wire[k] for k in _KEEP if k in wire} for wire in (m.wire() for m in request.messages)]
    body = {
        "windowId": request.window_id,
        "previousCheckpoint": request.previous_checkpoint,
        "page": request.page,
        "pageCount": request.page_count,
        "messages": page,
    }
    return [
        {"role": "system", "content": MAINTAINER_PROMPT.format(max_characters=request.max_characters)},
        {"role": "user", "content": json.dumps(body, ensure_ascii=False)},
    ]


def model_maintainer(
    generate: Callable[[ModelRequest], Awaitable[ModelOutput]],
    *,
    max_output_tokens: int | None,
    timeout_seconds: float,
    temperature: float | None = 0.0,
) -> Callable[[MaintenanceRequest], Awaitable[str]]:
    """A ``Maintainer`` backed by a chat model call (``generate`` does the accounting and snapshots);
    ``temperature`` None: not sent (a model that takes no temperature 0)."""

    async def maintain(request: MaintenanceRequest) -> str:
        output = await generate(ModelRequest(
            messages=maintenance_messages(request),
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            timeout_seconds=timeout_seconds,
        ))
        return (output.content or "").strip()

    return maintain
