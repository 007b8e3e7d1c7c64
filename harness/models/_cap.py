"""What is kept of one model answer (hostile input): a server that ignores ``max_tokens``
returned three 20 MB answers, and the run wrote 423 MB and used 1 GB of memory, because every
answer was stored whole in the session store, every later request, every snapshot, the transcript
and report.html.

``cap_output`` keeps at most ``MAX_ANSWER_CHARS`` characters of an answer's text and of each tool
call's arguments, and at most ``MAX_TOOL_CALLS`` tool calls. A cut is marked where it happened
(``[harness: … cut …]`` at the end of the kept text, which also makes cut arguments invalid JSON, so
the call is answered ``invalid_arguments``), the finish reason becomes ``length`` (the output cap
was exceeded, as a provider that honours ``max_tokens`` would say) and ``ModelOutput.cut`` says
what was cut. The provider's raw response, which holds the whole answer, is not kept. The runner
counts a cut answer as the trial's failure (``answer_within_output_cap``; failure mode
``truncated``): the model did not stop where it was asked to.

64,000 characters is far above any plan's ``maxOutputTokensPerCall`` (a token is a few
characters), so an answer a provider cut at the output cap is never cut again here.
"""

from __future__ import annotations

from ._types import ModelOutput, ToolCallOut

MAX_ANSWER_CHARS = 64_000
"""Characters kept of one answer's text, and of each of its tool calls' arguments."""
MAX_TOOL_CALLS = 32
"""Tool calls kept of one answer (the engine executes the first; the others are answered as over the limit)."""


def cut_marker(kept: int, total: int, what: str) -> str:
    return f"\n[harness: {what} cut here: {kept:,} of {total:,} characters kept (MAX_ANSWER_CHARS)]"


def _cut(text: str, what: str) -> str:
    """At most ``MAX_ANSWER_CHARS`` characters, the marker included (so a capped output is within the caps)."""
    kept = MAX_ANSWER_CHARS - len(cut_marker(MAX_ANSWER_CHARS, len(text), what))
    return text[:kept] + cut_marker(kept, len(text), what)


def cap_output(output: ModelOutput) -> ModelOutput:
    """``output`` within the caps, the cut marked; the same object when nothing is over them."""
    notes: list[str] = []
    content = output.content
    if content is not None and len(content) > MAX_ANSWER_CHARS:
        content = _cut(content, "answer")
        notes.append(f"answer text: {len(output.content or ''):,} characters, at most {MAX_ANSWER_CHARS:,} kept")
    calls: list[ToolCallOut] = []
    for call in output.tool_calls[:MAX_TOOL_CALLS]:
        if len(call.arguments) > MAX_ANSWER_CHARS:
            notes.append(f"arguments of {call.name[:80]}: {len(call.arguments):,} characters, "
                         f"at most {MAX_ANSWER_CHARS:,} kept")
            call = call.model_copy(update={"arguments": _cut(call.arguments, "arguments")})
        if len(call.name) > 256 or len(call.id) > 256:
            notes.append("an over-long tool call name or id")
            call = call.model_copy(update={"name": call.name[:256], "id": call.id[:256]})
        calls.append(call)
    if len(output.tool_calls) > MAX_TOOL_CALLS:
        notes.append(f"tool calls: {len(output.tool_calls):,}, the first {MAX_TOOL_CALLS} kept")
    if not notes:
        return output
    return output.model_copy(update={"content": content, "tool_calls": calls, "finish_reason": "length",
                                     "raw_response": None, "cut": "; ".join(notes)})
