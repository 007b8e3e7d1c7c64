"""``context_compress`` (issue 9 deviation 4): the agent asks the bound context maintainer to compress.

Source, unified@1 (kept by v2 and v3): "沿用 ManagedContextProtocol 的 context-maintainer 和真实 input token
阈值自动维护；若 Agent 绑定了 context-maintainer，也可以在阶段完成后主动调用". It runs through the very path
of automatic maintenance (frozen revision, range hash, P-50 … P-54), bounded by the call's frozen
upper bound; its receipt commits with the checkpoint (P-42), and a replay runs nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from protocols import (
    COMPRESS_TOOL,
    Dispatched,
    MaintainerBinding,
    MaintenanceRequest,
    MessageDraft,
    ToolCall,
    canonical_json,
)
from tests.protocols.tools.conftest import Bench


class Maintainer:
    def __init__(self, bench: Bench | None = None, meddle: bool = False) -> None:
        self.requests: list[MaintenanceRequest] = []
        self.bench, self.meddle = bench, meddle

    async def __call__(self, request: MaintenanceRequest) -> str:
        self.requests.append(request)
        if self.meddle and self.bench is not None:  # another writer commits while the maintainer reads
            b = self.bench
            b.store.commit(b.sid, b.revision(), {"taskMemory": "changed meanwhile"})
        return "checkpoint: " + ", ".join(m.id for m in request.messages)


def compress(bench: Bench, args: dict[str, Any], binding: MaintainerBinding | None,
             call_id: str = "cc1") -> Dispatched:
    """Record the call as the host does (call message, dispatch, result message) and return the outcome."""
    frozen = bench.b.frozen()
    call = ToolCall(id=call_id, name=COMPRESS_TOOL, arguments=json.dumps(args))
    window = bench.active()
    bench.store.append(bench.sid, MessageDraft(run_id=bench.b.run_id, window_id=window, role="assistant",
                                               kind="tool_call", tool_calls=(call,), frozen_view=frozen))
    done = asyncio.run(bench.protocol.dispatch_bound(bench.store, bench.sid, call, frozen, binding))
    bench.b.result(call.id, done.result, window_id=window)
    return done


def history(bench: Bench, groups: int) -> None:
    bench.b.user("请完成报价")
    for i in range(groups):
        bench.b.exchange("quote_calculate", {"n": i}, {"success": True, "total": 100 * i})
    bench.b.text("报价完成")


def test_compress_advances_covered_through_and_compressed_folds_read_back_raw(
        make_bench: Callable[..., Bench]) -> None:
    """Must show 4 (protocol side): coveredThrough advances, a covered fold still reads back its raw messages."""
    bench = make_bench("unified@1")
    history(bench, 3)  # 1 input, 2–7 three exchanges, 8 answer
    listed = bench.ok(bench.step("context_history_list", {"purpose": "看历史"}))
    first = next(i for i in listed["items"] if i["foldable"])
    bench.ok(bench.step("context_fold_create", {"purpose": "折叠", "fromIndex": first["firstIndex"],
                                                "throughIndex": first["lastIndex"], "summary": "算过一次报价"}))
    maintainer = Maintainer()
    done = compress(bench, {"purpose": "阶段完成后压缩"}, MaintainerBinding(maintainer, keep_recent_groups=2))
    result = bench.ok(done.result)
    assert result["status"] == "compressed" and result["compressedFolds"] == ["f1"]
    assert done.maintenance is not None and done.maintenance.status == "compressed" and not done.replayed
    covered = bench.kv()["coveredThrough/main"]
    assert covered == result["coveredThrough"] and covered >= first["lastIndex"]
    assert bench.kv()["checkpoint/main"]["summary"].startswith("checkpoint: ")
    # the maintainer read raw messages (P-51), never the fold summary in their place
    read = [m.id for r in maintainer.requests for m in r.messages]
    fold = bench.kv()["fold/f1"]
    assert set(fold["messageIds"]) <= set(read)
    # the fold is compressed (P-54) and still reads back raw
    listing = bench.ok(bench.call("context_fold_list", {"purpose": "看折叠"}))
    assert listing["folds"][0]["compressed"] is True
    text = bench.ok(bench.call("context_fold_read", {"purpose": "回读", "foldId": "f1"}))["text"]
    assert text == canonical_json([m.wire() for m in bench.store.messages_by_ids(bench.sid, fold["messageIds"])])


def test_receipt_commits_with_the_checkpoint_and_a_replay_runs_nothing(make_bench: Callable[..., Bench]) -> None:
    """P-42: the receipt is in the checkpoint's transaction; the same call id again returns it unchanged."""
    bench = make_bench("unified@1")
    history(bench, 3)
    maintainer = Maintainer()
    binding = MaintainerBinding(maintainer, keep_recent_groups=1)
    first = compress(bench, {"purpose": "压缩"}, binding)
    revision, asked = bench.revision(), len(maintainer.requests)
    assert bench.store.receipt(bench.sid, "cc1") == first.result
    assert first.result["stateRevision"] == revision
    frozen = bench.b.frozen()
    call = ToolCall(id="cc1", name=COMPRESS_TOOL, arguments=json.dumps({"purpose": "压缩"}))
    again = asyncio.run(bench.protocol.dispatch_bound(bench.store, bench.sid, call, frozen, binding))
    assert again.replayed and again.result == first.result and again.maintenance is None
    assert bench.revision() == revision and len(maintainer.requests) == asked


def test_the_call_never_covers_itself_or_what_came_after_its_frozen_bound(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench("unified@1")
    history(bench, 2)
    done = compress(bench, {"purpose": "压缩"}, MaintainerBinding(Maintainer(), keep_recent_groups=0))
    call_index = max(m.index for m in bench.store.all_messages(bench.sid) if m.kind == "tool_call"
                     and m.tool_calls and m.tool_calls[0].name == COMPRESS_TOOL)
    assert bench.ok(done.result)["coveredThrough"] < call_index


@pytest.mark.parametrize("ref", ["unified@2", "unified@3"])
def test_v2_v3_check_expected_window_before_any_maintenance(make_bench: Callable[..., Bench], ref: str) -> None:
    """P-73, P-74: the compression of "the window I am in" is refused when the model is elsewhere."""
    bench = make_bench(ref)
    history(bench, 3)
    maintainer = Maintainer()
    binding = MaintainerBinding(maintainer, keep_recent_groups=1)
    before = bench.kv()
    missing = compress(bench, {"purpose": "压缩"}, binding, call_id="x1")
    assert bench.code(missing.result) == "context_window_expectation_required"
    wrong = compress(bench, {"purpose": "压缩", "expectedWindowId": "beta"}, binding, call_id="x2")
    assert bench.code(wrong.result) == "context_window_mismatch"
    assert wrong.result["error"]["currentWindowId"] == "main"
    assert bench.kv() == before and maintainer.requests == []
    right = compress(bench, {"purpose": "压缩", "expectedWindowId": "main"}, binding, call_id="x3")
    assert bench.ok(right.result)["status"] == "compressed"


def test_stale_revision_and_a_state_change_while_reading_write_nothing(make_bench: Callable[..., Bench]) -> None:
    """P-41 before the maintainer starts; P-52 while it pages: rejected, nothing written, receipt kept."""
    bench = make_bench("unified@1")
    history(bench, 3)
    stale_frozen = bench.b.frozen()
    bench.store.commit(bench.sid, bench.revision(), {"taskMemory": "moved on"})
    call = ToolCall(id="s1", name=COMPRESS_TOOL, arguments=json.dumps({"purpose": "压缩"}))
    stale = asyncio.run(bench.protocol.dispatch_bound(bench.store, bench.sid, call, stale_frozen,
                                                      MaintainerBinding(Maintainer(), keep_recent_groups=1)))
    assert bench.code(stale.result) == "context_state_stale" and stale.maintenance is None
    meddler = Maintainer(bench, meddle=True)
    changed = compress(bench, {"purpose": "压缩"}, MaintainerBinding(meddler, keep_recent_groups=1), call_id="m1")
    assert bench.code(changed.result) == "maintenance_state_changed"
    assert changed.maintenance is not None and changed.maintenance.status == "rejected"
    assert "coveredThrough/main" not in bench.kv()
    assert bench.store.receipt(bench.sid, "m1") == changed.result


def test_nothing_to_compress_is_an_answer_not_an_error(make_bench: Callable[..., Bench]) -> None:
    bench = make_bench("unified@1")
    bench.b.user("hi")
    done = compress(bench, {"purpose": "压缩"}, MaintainerBinding(Maintainer(), keep_recent_groups=4))
    result = bench.ok(done.result)
    assert result["status"] == "nothing_to_do" and result["reason"] == "no_boundary"
    assert bench.store.receipt(bench.sid, "cc1") == result


def test_offered_only_when_bound_and_never_by_prefix(make_bench: Callable[..., Bench]) -> None:
    """Unbound: not a tool (``unknown_tool``), on the sync dispatcher and on the host's alike."""
    bench = make_bench("unified@1")
    history(bench, 1)
    assert bench.code(bench.call(COMPRESS_TOOL, {"purpose": "压缩"})) == "unknown_tool"
    unbound = compress(bench, {"purpose": "压缩"}, None, call_id="u1")
    assert bench.code(unbound.result) == "unknown_tool"
    assert COMPRESS_TOOL not in bench.protocol.tool_names()
    assert bench.protocol.tool_names(maintainer_bound=True)[-1] == COMPRESS_TOOL
    prefix = make_bench("prefix@2", session_id="p")
    assert prefix.protocol.tool_names(maintainer_bound=True) == []
