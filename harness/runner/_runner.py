"""The experiment: groups walk the stages in plan order, trials run concurrently (X-10 … X-13, X-80).

Each group is one pipeline: it enters a stage when the gate lets it, runs the stage's repeats (up
to ``concurrency`` trials at once across all groups), waits for the stage's outcome, then goes on.
Trial ids are ``<group>/<stage>/<repeat>``; every finished trial is persisted at once (X-81).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from harness.business_tools import BusinessTools
from harness.engine import Engine, RunLimits
from harness.models import ChatModel, make_model, model_capacity
from harness.models.workers import ModelWorkers
from harness.plan import GroupSpec, Plan, StageSpec
from harness.results._records import TrialRecord, trial_id
from harness.scripted import get_scripted
from protocols import HostOptions, resolve

from ._budget import BudgetLedger
from ._cache import ResponseCache, cached_factory
from ._gating import (
    StageStatus,
    earlier_attempts,
    entry_blocker,
    final_attempts,
    needs_retry,
    next_attempt,
    stage_status,
    takes_part,
)
from ._persist import RunDir
from ._prices import PriceTable
from ._reasoning import MAINTAINER_TEMPERATURE, AgentCalls, agent_calls
from ._refusals import RefusalMemo
from ._sequential import LookBarrier
from ._stops import InfraMonitor
from ._storage import StorageError, storage_problem
from ._trial import now, run_trial


@dataclass
class Settings:
    """What the CLI decided: models, filters, concurrency (everything else is the plan's)."""

    agent_model: str
    maintainer_model: str
    api_base: str | None = None
    groups: list[str] | None = None
    stages: list[str] | None = None
    concurrency: int = 4
    model_factory: Callable[..., ChatModel] = field(default=partial(make_model, scripted=get_scripted))
    """Builds each model; the default knows the scripted models (``harness.scripted``)."""
    cache_dir: Path | None = None
    """``--cache DIR``: answer repeated requests from this response cache (``_cache``)."""
    send_rejected: bool = False
    """``--send-rejected``: send a group's requests even when the preflight says the provider rejects them."""
    model_workers: int = 0
    """``--model-workers N``: litellm's part of each call in N worker processes (``harness.models.workers``);
    0 = in this process. ``scripted/*`` models always run here."""


def agent_limits(plan: Plan, calls: AgentCalls) -> RunLimits:
    """The limits, sampling and provider parameters of every agent call of a trial (the preflight builds
    the same request); ``calls``: the agent's parameters and output cap with any thinking budget
    (``_reasoning.agent_calls``, worked out once per run). A sampling value the model does not take
    (``calls.unsent``) is not sent, and the maintainer's temperature 0 neither where its model does not
    take it (``calls.maintainer_unsent``)."""
    budget = plan.budget
    sampling = plan.models.sampling
    return RunLimits(
        max_steps=budget.maxStepsPerRun or 12,
        max_consecutive_tool_errors=plan.stop.maxConsecutiveToolErrors or 1_000_000,
        max_output_tokens=calls.max_output_tokens,  # + any thinking budget
        timeout_seconds=budget.timeoutSecondsPerCall or 120.0,
        temperature=sampling.temperature if calls.sends("temperature") else None,
        top_p=sampling.topP if calls.sends("top_p") else None,
        seed=sampling.seed if calls.sends("seed") else None,  # the first repeat's; run_trial gives r seed + r - 1
        extra=calls.extra, thinking_budget=calls.thinking_budget,
        maintainer_temperature=None if calls.maintainer_unsent else MAINTAINER_TEMPERATURE,
    )


ProgressHook = Callable[[str, TrialRecord], None]
StageHook = Callable[[str, str, str, str | None], None]
"""``(event, group, stage, status)``: ``start`` as a group enters a stage, ``end`` with its outcome."""


@dataclass
class Experiment:
    plan: Plan
    settings: Settings
    ledger: BudgetLedger
    prices: PriceTable
    run_dir: RunDir
    store: Any
    previous: list[TrialRecord] = field(default_factory=list)
    """The records of earlier processes of this run (resume): a repeat one of them decided is not
    run again; the other attempts that ran are kept, and placeholders are superseded."""
    on_trial: ProgressHook | None = None
    on_stage: StageHook | None = None
    held: dict[str, str] = field(default_factory=dict)
    """group → why its requests are not sent: the preflight's rule that the provider rejects them (P-80).
    Its trials are ``skipped`` with that reason, never run, never a model failure."""
    records: list[TrialRecord] = field(default_factory=list)
    outcomes: dict[tuple[str, str], StageStatus] = field(default_factory=dict)
    started_at: str = field(default_factory=now)
    workers: ModelWorkers | None = None
    """The run's model workers (``Settings.model_workers``), which the built litellm models call through."""

    def __post_init__(self) -> None:
        self._sem = asyncio.Semaphore(max(1, self.settings.concurrency))
        self._engines: dict[str, Engine] = {}
        self.cache = None if self.settings.cache_dir is None else ResponseCache(self.settings.cache_dir)
        stop = self.plan.stop
        self.infra = InfraMonitor(stop.maxInfraErrorRate, stop.minCallsForInfraRate)
        self._earlier = earlier_attempts(self.previous)
        self._stop_skipped = False
        self._barriers: dict[str, LookBarrier] = {}
        self.storage_error: StorageError | None = None
        """The first write the disk refused (full, read-only): the run stops, ``_storage``."""
        self._agent_calls: AgentCalls | None = None
        self.refusals = RefusalMemo()
        """The run's deterministic refusals: an identical request is never sent again (``_refusals``)."""

    @property
    def agent_calls(self) -> AgentCalls:
        """The agent's provider parameters and output cap (``_reasoning``), worked out once per run."""
        if self._agent_calls is None:
            self._agent_calls = agent_calls(self.settings.agent_model, self.plan.models,
                                            self.plan.budget.maxOutputTokensPerCall,
                                            maintainer=self.settings.maintainer_model)
        return self._agent_calls

    # selection --------------------------------------------------------------------------------
    def selected_groups(self) -> list[GroupSpec]:
        wanted = self.settings.groups
        return [g for g in self.plan.groups if wanted is None or g.id in wanted]

    def selected(self, stage: StageSpec) -> bool:
        return self.settings.stages is None or stage.id in self.settings.stages

    # engines ----------------------------------------------------------------------------------
    def engine(self, group: GroupSpec) -> Engine:
        if group.id not in self._engines:
            plan, s = self.plan, self.settings
            factory = s.model_factory if self.workers is None else self.workers.wrap(s.model_factory)
            factory = factory if self.cache is None else cached_factory(factory, self.cache)
            factory = self.refusals.wrap(factory)
            model = factory(s.agent_model, api_base=s.api_base, prices=self.prices.get(s.agent_model))
            maintainer = model if s.maintainer_model == s.agent_model else factory(
                s.maintainer_model, api_base=s.api_base, prices=self.prices.get(s.maintainer_model))
            limits = agent_limits(plan, self.agent_calls)
            capacity = plan.models.capacityTokens
            if capacity is None and not s.agent_model.startswith("scripted/"):
                capacity = model_capacity(s.agent_model)
            self._engines[group.id] = Engine(
                store=self.store,
                protocol=resolve(group.protocol.id, group.protocol.version, group.protocol.options),
                agent=plan.agent.config(),
                model=model, model_name=s.agent_model,
                business=BusinessTools({k: v.model_dump() for k, v in plan.agent.projects.items()}),
                host=HostOptions(maintenance=plan.maintenance), limits=limits,
                maintainer_model=maintainer, maintainer_name=s.maintainer_model,
                guard=self.ledger, capacity_tokens=capacity)
        return self._engines[group.id]

    # running ----------------------------------------------------------------------------------
    @property
    def stopping(self) -> str | None:
        if self.storage_error is not None:
            return "storage_error"
        if self.ledger.exhausted is not None:
            return f"budget_exhausted:{self.ledger.exhausted}"
        return self.ledger.stop_reason

    def stopped_anything(self) -> bool:
        """Whether the stop asked for skipped a trial or a stage, or refused a model call: an
        interrupt after the last trial finished stopped nothing, and the run is completed."""
        return self._stop_skipped or self.ledger.stop_refusals > 0

    async def run(self) -> None:
        await asyncio.gather(*(self._group(g) for g in self.selected_groups()))

    async def _group(self, group: GroupSpec) -> None:
        for stage in self.plan.stages:
            if not self.selected(stage) or not takes_part(self.plan, group.id, stage):
                continue
            key = (group.id, stage.id)
            blocked = self._blocked(group, stage)
            if blocked or self.stopping:
                self._stop_skipped = self._stop_skipped or not blocked
                self.outcomes[key] = "not_reached"
                if stage.sequential is not None:
                    self._barrier(stage).absent(group.id)
                continue
            if self.on_stage is not None:
                self.on_stage("start", group.id, stage.id, None)
            self.outcomes[key] = await self._stage(group, stage)
            if self.on_stage is not None:
                self.on_stage("end", group.id, stage.id, self.outcomes[key])

    def _blocked(self, group: GroupSpec, stage: StageSpec) -> bool:
        outcomes = dict(self.outcomes)
        for required in self.plan.required_stages(group.id, stage):
            if not self.selected(self.plan.stage(required)):
                outcomes[(group.id, required)] = "passed"  # --stage: unselected requirements count as met
        return entry_blocker(self.plan, group.id, stage, outcomes) is not None

    async def _stage(self, group: GroupSpec, stage: StageSpec) -> StageStatus:
        if stage.sequential is not None:
            return await self._sequential(group, stage)
        failed = asyncio.Event()
        results = await asyncio.gather(*(self._repeat(group, stage, n, failed) for n in range(1, stage.repeats + 1)))
        records = [r for attempts in results for r in attempts]
        return stage_status(records, stage.repeats)

    async def _sequential(self, group: GroupSpec, stage: StageSpec) -> StageStatus:
        """Repeats up to each look, then wait there for the stage's other groups; when every listed
        comparison has crossed at a look, the stage is complete at that look for all of them
        (``_sequential``): its status is its trials', the repeats it did not need never run."""
        barrier, never_failed = self._barrier(stage), asyncio.Event()  # never set: a sequential stage is not failFast
        records: list[TrialRecord] = []
        done = 0
        for index, look in enumerate(barrier.looks):
            results = await asyncio.gather(*(self._repeat(group, stage, n, never_failed)
                                             for n in range(done + 1, look + 1)))
            records += [r for attempts in results for r in attempts]
            done = look
            if await barrier.arrive(group.id, index):
                break
        return stage_status(records, done)

    def _barrier(self, stage: StageSpec) -> LookBarrier:
        if stage.id not in self._barriers:
            expected = [g.id for g in self.selected_groups() if takes_part(self.plan, g.id, stage)]
            self._barriers[stage.id] = LookBarrier(self.plan, stage, expected, lambda g: self.decided(g, stage.id),
                                                   lambda: bool(self.stopping))
        return self._barriers[stage.id]

    async def _repeat(
        self, group: GroupSpec, stage: StageSpec, repeat: int, failed: asyncio.Event
    ) -> list[TrialRecord]:
        """Every attempt of one repeat: an earlier process's (kept, never re-run when one of them
        decided the repeat), then new ones, numbered on from the last that ran (X-12, X-81)."""
        earlier = [self._keep(r) for r in self._earlier.get((group.id, stage.id, repeat), [])]
        if earlier and earlier[-1].finished:
            if earlier[-1].status == "failed" and stage.failFast:
                failed.set()
            return earlier
        attempts = list(earlier)
        on_disk = self.run_dir.transcript_attempts(group.id, stage.id, repeat)
        attempt = first = max(next_attempt(earlier), max(on_disk, default=-1) + 1)
        while True:
            record = await self._attempt(group, stage, repeat, attempt, failed)
            attempts.append(record)
            if record.status == "failed" and stage.failFast:
                failed.set()
            # a retry the run is stopping for is still recorded, as skipped: the label of an errored
            # repeat never depends on whether the stop came before or after its retry was queued
            if not needs_retry(record, self.plan.stop.infraRetries, first):
                return attempts
            attempt += 1

    async def _attempt(self, group: GroupSpec, stage: StageSpec, repeat: int, attempt: int,
                       failed: asyncio.Event) -> TrialRecord:
        tid = trial_id(group.id, stage.id, repeat, attempt)
        try:
            async with self._sem:
                reason = self.held.get(group.id) or self.stopping or (
                    "fail_fast: an earlier trial of this stage failed" if failed.is_set() else None)
                if reason is not None:
                    self._stop_skipped = self._stop_skipped or (bool(self.stopping) and group.id not in self.held)
                    return self._keep(TrialRecord(id=tid, group=group.id, stage=stage.id, repeat=repeat,
                                                  attempt=attempt, status="skipped", reason=reason), persist=True)
                texts: list[bytes] = []
                record = await run_trial(self.engine(group), group.id, stage, repeat, attempt, texts)
            self.run_dir.write_transcript(record, texts)
            if self.infra.add(record):
                self.ledger.request_stop("provider_unhealthy")
            return self._keep(record, persist=True)
        except Exception as exc:  # the disk's failure stops the run; anything else is a defect
            if not storage_problem(exc):
                raise
            error = exc if isinstance(exc, StorageError) else StorageError(self.run_dir.path, exc)
            self.storage_error = self.storage_error or error
            self.ledger.request_stop("storage_error")
            return self._keep(TrialRecord(id=tid, group=group.id, stage=stage.id, repeat=repeat, attempt=attempt,
                                          status="skipped", reason=f"stopped: storage_error: {error}"))

    def _keep(self, record: TrialRecord, persist: bool = False) -> TrialRecord:
        if persist:
            self.run_dir.append_record(record)
        self.records.append(record)
        if self.on_trial is not None:
            self.on_trial("trial", record)
        return record

    # results ----------------------------------------------------------------------------------
    def stage_records(self, group_id: str, stage_id: str) -> list[TrialRecord]:
        return sorted((r for r in self.records if r.group == group_id and r.stage == stage_id),
                      key=lambda r: (r.repeat, r.attempt))

    def decided(self, group_id: str, stage_id: str) -> dict[int, TrialRecord]:
        return final_attempts(self.stage_records(group_id, stage_id))


def default_out_dir(plan: Plan, root: Path = Path("reports")) -> Path:
    stamp = now().replace(":", "").replace("-", "").replace(".", "")
    return root / plan.id / stamp
