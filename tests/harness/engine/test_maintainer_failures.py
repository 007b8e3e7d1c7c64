"""E-7 for the maintainer role: a maintainer call that still fails after its retries ends the run as
``error`` with its infrastructure kind, never an uncaught exception (found by the fixed plan over HTTP
with 20% faults: a ``context_compress`` whose maintainer page failed three times crashed the run).

Threshold maintenance, agent-called ``context_compress`` and E-12 recovery all run maintainer calls;
each gets the same treatment, and a compression that failed wrote nothing, so its call is still
pending and the next run of the session answers it.
"""

from __future__ import annotations

import asyncio

from harness.business_tools import BusinessTools
from harness.engine import Engine, RunResult
from harness.models import ModelCallError, ModelOutput, ModelRequest, make_model
from harness.models._types import RetryRecord
from harness.scripted import get_scripted
from protocols import HostOptions, MaintenanceOptions, resolve_ref
from protocols.store import MemoryStore
from tests.helpers.engine import AGENT, T1, T2, T3


class Failing:
    """A maintainer whose provider keeps failing until ``heal()``; then it answers like the oracle."""

    def __init__(self) -> None:
        self.calls = 0
        self.healed = make_model("scripted/oracle", scripted=get_scripted)
        self.broken = True

    async def generate(self, request: ModelRequest) -> ModelOutput:
        self.calls += 1
        if self.broken:
            retries = [RetryRecord(attempt=n, error_class="InternalServerError", status_code=500)
                       for n in (1, 2)]
            raise ModelCallError("infrastructure", "gave up after 3 attempts: InternalServerError (500)", 500,
                                 retries)
        return await self.healed.generate(request)


def _engine(maintainer: Failing, host: HostOptions | None = None, bound: bool = True) -> Engine:
    agent = AGENT.model_copy(update={"contextMaintainer": bound})
    return Engine(store=MemoryStore(), protocol=resolve_ref("unified@3", {}), agent=agent,
                  model=make_model("scripted/oracle", scripted=get_scripted), model_name="scripted/oracle",
                  business=BusinessTools({"P-17": {"budget": 9000, "spent": 6900}}), host=host,
                  maintainer_model=maintainer, maintainer_name="broken/maintainer")


def _turns(engine: Engine, sid: str, turns: list[str]) -> list[RunResult]:
    async def go() -> list[RunResult]:
        return [await engine.run_send_input(sid, t) for t in turns]

    return asyncio.run(go())


def test_a_failing_maintainer_in_context_compress_ends_the_run_as_infrastructure() -> None:
    maintainer = Failing()
    engine = _engine(maintainer)
    sid = engine.create_session()
    first, second = _turns(engine, sid, [T1, T2])
    assert first.status == "completed"
    assert (second.status, second.error_class) == ("error", "infrastructure"), second
    assert second.error and second.error.startswith("the maintainer's call: gave up after 3 attempts")
    assert maintainer.calls == 1
    failed = [c for c in second.calls if c.role == "maintainer"]
    assert [(c.status, c.retries, c.model) for c in failed] == [("infrastructure", 2, "broken/maintainer")]
    # the compression wrote nothing: no checkpoint, and its call is pending (no result yet)
    store = engine.store
    assert store.kv_get(sid, "checkpoint/alpha") is None
    last = store.message_at(sid, store.max_index(sid))
    assert last is not None and last.tool_calls and last.tool_calls[0].name == "context_compress"
    # the provider is back: the next run answers the pending call first (E-12), then the turn
    maintainer.broken = False
    (third,) = _turns(engine, sid, [T3])
    assert third.status == "completed" and "6900" in (third.final_answer or ""), third
    result = store.message_at(sid, last.index + 1)
    assert result is not None and (result.kind, result.tool_call_id) == ("tool_result", last.tool_calls[0].id)
    assert '"status": "compressed"' in result.text() or '"status":"compressed"' in result.text()
    assert store.kv_get(sid, "checkpoint/alpha") is not None


def test_a_failing_maintainer_in_threshold_maintenance_ends_the_run_as_infrastructure() -> None:
    maintainer = Failing()
    host = HostOptions(maintenance=MaintenanceOptions(thresholdTokens=50, keepRecentGroups=1))
    engine = _engine(maintainer, host, bound=False)  # no context_compress: only the threshold runs it
    sid = engine.create_session()
    runs = _turns(engine, sid, [T1, T2])
    ended = [r for r in runs if r.status != "completed"]
    assert ended, [r.status for r in runs]
    assert (ended[0].status, ended[0].error_class) == ("error", "infrastructure")
    assert maintainer.calls >= 1 and engine.store.kv_get(sid, "checkpoint/alpha") is None
