"""The looks of a sequential stage at run time (X-12, X-80): every group waits at each look for the others.

A sequential stage (``stages[].sequential``) is run look by look: each group that enters it runs its
repeats up to the next look and then waits at that look until every group expected there has arrived
or is known not to enter the stage (gated out, or the run stopped before it). Then, once for all of
them, the stage's looks are read from the trials (``results.sequential_result``, the function
report.json states them with): when the look just finished is the one where every listed comparison
crossed its boundary, the stage stops for all its groups. A resumed run reaches the same decisions
from the recorded trials, so the looks that passed are not run again and a stop is not undone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from harness.plan import Plan, StageSpec
from harness.results._records import TrialRecord
from harness.results._sequential import sequential_result

Finals = Callable[[str], Mapping[int, TrialRecord]]
"""group → repeat → its deciding attempt, as recorded so far."""


class LookBarrier:
    """One per sequential stage of a run: the groups it waits for, and the decision at each look."""

    def __init__(self, plan: Plan, stage: StageSpec, expected: list[str], finals: Finals,
                 stopping: Callable[[], bool]) -> None:
        assert stage.sequential is not None
        self.plan, self.stage = plan, stage
        self.looks = stage.sequential.looks
        self._expected = set(expected)
        self._absent: set[str] = set()
        self._entered: set[str] = set()
        self._arrived: dict[int, set[str]] = {}
        self._decisions: dict[int, asyncio.Future[bool]] = {}
        self._finals, self._stopping = finals, stopping

    def absent(self, group: str) -> None:
        """``group`` will not enter the stage: no look waits for it."""
        self._absent.add(group)
        for index in list(self._arrived):
            self._decide_if_ready(index)

    async def arrive(self, group: str, index: int) -> bool:
        """``group`` has run its repeats up to look ``index`` (0-based): True when the stage stops there."""
        self._entered.add(group)
        self._arrived.setdefault(index, set()).add(group)
        self._decide_if_ready(index)
        return await self._future(index)

    def _future(self, index: int) -> asyncio.Future[bool]:
        if index not in self._decisions:
            self._decisions[index] = asyncio.get_running_loop().create_future()
        return self._decisions[index]

    def _decide_if_ready(self, index: int) -> None:
        future = self._future(index)
        if future.done() or not (self._arrived[index] | self._absent) >= self._expected:
            return
        future.set_result(self._stops_at(index))

    def _stops_at(self, index: int) -> bool:
        if self._stopping():  # a stopping run decides nothing: its remaining trials are skipped
            return False
        finals = {g.id: self._finals(g.id) for g in self.plan.groups if g.id in self._entered}
        result = sequential_result(self.plan, self.stage, finals)
        return result.stoppedAt == index + 1
