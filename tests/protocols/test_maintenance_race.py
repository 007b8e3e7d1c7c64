"""Maintenance racing a step (P-52, P-41, E-13) and coveredThrough's monotony (P-9).

Whichever of the two commits second is rejected and writes nothing: a maintenance that sees the
revision move while paging answers ``maintenance_state_changed``; a tool call whose frozen
revision predates a completed maintenance answers ``context_state_stale``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import (
    FrozenView,
    MaintenanceRequest,
    MaintenanceResult,
    MessageDraft,
    RawMessage,
    ToolCall,
    maintain_window,
    resolve,
)
from protocols.store import JsonValue, MemoryStore, SessionStore
from tests.helpers.builders import SessionBuilder

OnPage = Callable[[MaintenanceRequest], None]


def maintainer(on_page: OnPage | None = None) -> Callable[[MaintenanceRequest], Awaitable[str]]:
    async def answer(request: MaintenanceRequest) -> str:
        await asyncio.sleep(0)  # a real model call yields to the loop: the step may run meanwhile
        if on_page is not None:
            on_page(request)
        return f"summary after page {request.page}"
    return answer


def run(store: SessionStore, on_page: OnPage | None = None, page_size: int = 2, **kw: Any) -> MaintenanceResult:
    protocol = resolve("unified", 1, {"pageSize": page_size})
    return asyncio.run(maintain_window(protocol, store, "s1", "main", maintainer(on_page), **kw))


def session(n: int = 9) -> tuple[MemoryStore, SessionBuilder]:
    store = MemoryStore()
    b = SessionBuilder(store)
    for i in range(n):
        b.text(f"note {i}")
    return store, b


def assert_nothing_from_maintenance(store: SessionStore) -> None:
    assert store.kv_get("s1", "checkpoint/main") is None
    assert store.kv_get("s1", "coveredThrough/main") is None


@pytest.mark.parametrize("on_page", [1, 2, 4])  # first, middle and last of 4 pages
def test_p52_a_commit_while_paging_rejects_maintenance_and_it_writes_nothing(on_page: int) -> None:
    store, _ = session()
    seen: list[int] = []

    def step_commits(request: MaintenanceRequest) -> None:
        seen.append(request.page)
        if request.page == on_page:
            store.commit("s1", store.revision("s1"), {"taskMemory": "changed by the step"})

    result = run(store, step_commits, keep_recent_groups=1)
    assert (result.status, result.reason) == ("rejected", "maintenance_state_changed")
    assert seen == list(range(1, on_page + 1))  # no page is read after the change
    assert (result.pages, result.through_index, result.revision) == (on_page, 8, 1)
    assert_nothing_from_maintenance(store)
    assert store.kv_get("s1", "taskMemory") == "changed by the step"


class SneakyStore(MemoryStore):
    """A writer slips in between maintenance's last check and its commit."""

    def __init__(self) -> None:
        super().__init__()
        self.sneak = False

    def commit(self, session_id: str, expected_revision: int, changes: Any,
               receipt: tuple[str, JsonValue] | None = None) -> int:
        if self.sneak:
            self.sneak = False
            super().commit(session_id, self.revision(session_id), {"taskMemory": "first"})
        return super().commit(session_id, expected_revision, changes, receipt)


def test_p52_a_commit_racing_the_final_commit_loses_nothing_and_rejects_maintenance() -> None:
    store = SneakyStore()
    b = SessionBuilder(store)
    for i in range(6):
        b.text(f"note {i}")
    store.sneak = True
    result = run(store, keep_recent_groups=1)
    assert (result.status, result.reason, result.revision) == ("rejected", "maintenance_state_changed", 1)
    assert_nothing_from_maintenance(store)
    assert store.kv_get("s1", "taskMemory") == "first"


class ShiftingStore(MemoryStore):
    """Raw content of the range reads differently after the freeze (a defect the hash must catch)."""

    def __init__(self, after_reads: int) -> None:
        super().__init__()
        self.reads = 0
        self.after_reads = after_reads

    def window_messages(self, session_id: str, window_id: str, after_index: int, upper_bound: int,
                        limit: int | None = None) -> list[RawMessage]:
        self.reads += 1
        got = super().window_messages(session_id, window_id, after_index, upper_bound, limit)
        if self.reads > self.after_reads and got:
            got[0] = got[0].model_copy(update={"content": "tampered"})
        return got


@pytest.mark.parametrize("after_reads", [1, 2, 5])  # first page, second page, the commit-time re-read
def test_p52_changed_raw_content_rejects_maintenance(after_reads: int) -> None:
    store = ShiftingStore(after_reads)
    b = SessionBuilder(store)
    for i in range(9):
        b.text(f"note {i}")
    result = run(store, keep_recent_groups=1)  # reads: freeze, pages 1-4, commit check
    assert (result.status, result.reason, result.revision) == ("rejected", "maintenance_state_changed", 0)
    assert_nothing_from_maintenance(store)


def memory_set(call_id: str, text: str) -> ToolCall:
    """taskMemory is cross-window: no expectedWindowId, even on v2."""
    args = {"memory": text, "purpose": "remember the budget"}
    return ToolCall(id=call_id, name="context_task_memory_set", arguments=json.dumps(args))


@pytest.mark.parametrize("version", [1, 2])
def test_p41_a_tool_call_framed_before_a_completed_maintenance_is_stale(version: int) -> None:
    """Maintenance commits first; the step's call, frozen before it, commits second and loses."""
    protocol = resolve("unified", version, {"pageSize": 2})
    store, b = session()
    frozen = b.frozen()  # the step's request was built here
    result = asyncio.run(maintain_window(protocol, store, "s1", "main", maintainer(), keep_recent_groups=1))
    assert result.status == "compressed" and store.revision("s1") == 1
    answer = protocol.dispatch(store, "s1", memory_set("c1", "budget 40k"), frozen)
    assert answer["success"] is False and answer["error"]["code"] == "context_state_stale"
    assert store.revision("s1") == 1 and store.kv_get("s1", "taskMemory") is None
    assert store.kv_get("s1", "coveredThrough/main") == 8


@pytest.mark.parametrize("version", [1, 2])
def test_p52_a_tool_call_committed_while_maintenance_pages_rejects_the_maintenance(version: int) -> None:
    """The step commits first (concurrently, in the same event loop); maintenance loses."""
    protocol = resolve("unified", version, {"pageSize": 2})
    store, b = session()
    step_done = asyncio.Event()
    answers: list[dict[str, Any]] = []

    async def step() -> None:
        frozen = FrozenView(revision=store.revision("s1"), upper_bound=store.max_index("s1"), run_id=b.run_id)
        await asyncio.sleep(0)
        answers.append(protocol.dispatch(store, "s1", memory_set("c1", "budget 40k"), frozen))
        step_done.set()

    async def slow_maintainer(request: MaintenanceRequest) -> str:
        if request.page == 2:
            await step_done.wait()  # the model is still thinking when the step commits
        return "summary"

    async def both() -> MaintenanceResult:
        result, _ = await asyncio.gather(
            maintain_window(protocol, store, "s1", "main", slow_maintainer, keep_recent_groups=1), step())
        return result

    result = asyncio.run(both())
    assert answers[0]["success"] is True
    assert (result.status, result.reason) == ("rejected", "maintenance_state_changed")
    assert store.revision("s1") == 1 and store.kv_get("s1", "taskMemory") == "budget 40k"
    assert_nothing_from_maintenance(store)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 4), st.integers(1, 4), st.booleans()),
                min_size=1, max_size=6))
def test_p9_covered_through_never_decreases_over_repeated_maintenance(
    rounds: list[tuple[int, int, int, bool]],
) -> None:
    store = MemoryStore()
    b = SessionBuilder(store)
    covered = 0
    for new_messages, keep, page_size, race in rounds:
        for i in range(new_messages):
            if i % 3 == 2:
                b.exchange("lookup", {"i": i})
            else:
                store.append("s1", MessageDraft(run_id=b.run_id, window_id="main", role="assistant",
                                                kind="text", content=f"n{i}"))
        on_page = (lambda r: store.commit("s1", store.revision("s1"), {"taskMemory": "x"})) if race else None
        result = run(store, on_page, page_size=page_size, keep_recent_groups=keep)
        now = int(store.kv_get("s1", "coveredThrough/main") or 0)
        assert now >= covered
        if result.status == "compressed":
            assert result.through_index == now > covered
            assert store.kv_get("s1", "checkpoint/main")["coveredThrough"] == now
        else:
            assert now == covered
        assert now <= store.max_index("s1")
        covered = now
