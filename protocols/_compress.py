"""``context_compress``: agent-called prefix compression (source, unified@1, kept by v2 and v3:
"若 Agent 绑定了 context-maintainer，也可以在阶段完成后主动调用").

The dispatcher has already checked the arguments, the call's frozen revision (P-41) and, on v2/v3,
``expectedWindowId`` (P-74). Then the bound maintainer runs on the active window through the very
path of automatic maintenance (``maintain_window``: frozen revision, range hash, page checks, P-50 …
P-54), bounded by the call's frozen upper bound, so the call never covers itself. A compression
commits its receipt in the checkpoint's transaction (P-42); any other outcome stores its receipt
on its own. A replay of the call id returns the receipt and runs nothing.
"""

from __future__ import annotations

from typing import Any

from ._maintenance import STATE_CHANGED, MaintainerBinding, MaintenanceResult, maintain_window
from ._messages import FrozenView, ToolCall
from ._version import ProtocolVersion
from .store import SessionStore
from .tools import failure, success

_NOTHING = {
    "no_uncovered_history": "the window has no history that the checkpoint does not cover yet",
    "no_boundary": "every uncovered group is among the most recent ones, which stay as they are, or still "
                   "waits for results",
}


def compress_result(outcome: MaintenanceResult) -> dict[str, Any]:
    """The tool result of one maintenance outcome."""
    if outcome.status == "compressed":
        return success(
            status="compressed", windowId=outcome.window_id, fromIndex=outcome.from_index,
            coveredThrough=outcome.through_index, pages=outcome.pages, checkpointLength=outcome.checkpoint_length,
            truncated=outcome.truncated, compressedFolds=list(outcome.compressed_folds),
            stateRevision=outcome.revision,
            note=f"The checkpoint in the context header now stands for this window's messages up to "
                 f"#{outcome.through_index}; folds it covers stay readable with context_fold_read.")
    if outcome.status == "nothing_to_do":
        reason = outcome.reason or "no_boundary"
        return success(status="nothing_to_do", reason=reason, windowId=outcome.window_id,
                       stateRevision=outcome.revision, note=f"Nothing was compressed: {_NOTHING.get(reason, reason)}.")
    if outcome.reason == STATE_CHANGED:
        return failure(STATE_CHANGED, "the session state changed while the maintainer read the window; nothing "
                       "was written; look at the current state and call again", currentRevision=outcome.revision)
    return failure(str(outcome.reason or "maintenance_rejected"),
                   "the checkpoint could not be written; nothing was changed", currentRevision=outcome.revision)


async def run_compress(
    protocol: ProtocolVersion, store: SessionStore, session_id: str, call: ToolCall, frozen: FrozenView,
    window_id: str, binding: MaintainerBinding,
) -> tuple[dict[str, Any], MaintenanceResult]:
    """Run the bound maintainer for one ``context_compress`` call; returns (result, outcome)."""
    outcome = await maintain_window(
        protocol, store, session_id, window_id, binding.maintainer,
        keep_recent_groups=binding.keep_recent_groups, upper_bound=frozen.upper_bound,
        receipt=(call.id, compress_result),
    )
    result = compress_result(outcome)
    if outcome.status != "compressed":
        result = dict(store.put_receipt(session_id, call.id, result))
    return result, outcome
