"""``execute``: one experiment from a validated plan to a written run directory.

Order: prices (fail closed, X-22) come before any directory is made; then the directory's lock
(one process per run directory), the provider preflight, the manifest with the run's settings
(what a resume restores), the durable store, the ledger (restored on resume), the experiment, and
the outputs, which are written whatever the reason the experiment ended.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
from harness import run_collector
from harness.business_tools import BusinessTools
from harness.models import ModelRequest, Prices, public_api_base
from harness.models.workers import ModelWorkers, stays_in_process
from harness.plan import BudgetSpec, Expectation, Plan
from harness.results import Override, Report, ReportError, read_report
from harness.results._assemble import build_report
from protocols import HostOptions, resolve
from protocols.store import SqliteStore

from ._budget import BudgetLedger
from ._cache import check_cache
from ._lock import exclusive
from ._outputs import RENDER_INTERRUPTED, write_outputs
from ._overrides import OverrideSpec, check_same_overrides
from ._persist import RunDir
from ._prices import PriceTable, build_price_table
from ._reasoning import ParamsRefused, agent_calls
from ._resume import recorded_settings
from ._runner import Experiment, ProgressHook, Settings, StageHook, agent_limits
from ._stops import interrupt_handlers
from ._storage import StorageError, storage_problem
from ._trial import now


@dataclass
class RunRequest:
    plan: Plan
    plan_sha256: str
    plan_path: str
    settings: Settings
    out_dir: Path
    resume: bool = False
    max_usd: float | None = None
    max_total_tokens: int | None = None
    max_llm_calls: int | None = None
    max_wall_seconds: float | None = None
    """``--max-usd`` / ``--max-total-tokens`` / ``--max-llm-calls`` / ``--max-wall-seconds``: replace the plan's
    cap (``cap_overrides``)."""
    cli_prices: dict[str, Prices] = field(default_factory=dict)
    render: bool = True
    """Render report.html / report.md / plots after the run (``harness report DIR`` can do it later)."""
    budget: BudgetSpec | None = None
    """Caps replacing the plan's (a sweep gives each model what the earlier models left); the command line's
    ``max_*`` still win."""
    expect: list[Expectation] = field(default_factory=list)
    """``--expect``: checked with the plan's ``expect`` after the run (``_expect``)."""
    override_spec: OverrideSpec = field(default_factory=OverrideSpec)
    """``--temperature`` / ``--seed`` / ``--repeats`` as given; ``plan`` already has them applied."""
    overrides: list[Override] = field(default_factory=list)
    """What they replaced in the plan, for report.json (``_overrides.apply_overrides``)."""


@dataclass
class RunOutcome:
    run_dir: Path
    status: str
    stop_reason: str | None
    report: Report
    experiment: Experiment
    render_error: str | None = None
    storage_error: StorageError | None = None
    """The write the disk refused during the run, which stopped it (``stop_reason`` ``storage_error``)."""

    @property
    def render_interrupted(self) -> bool:
        """A Ctrl-C stopped the rendering of report.html / .md (report.json is written)."""
        return self.render_error == RENDER_INTERRUPTED


def cap_overrides(request: RunRequest) -> dict[str, float | int]:
    """The caps the command line set, by the plan's budget field name."""
    given = {"maxUsd": request.max_usd, "maxTotalTokens": request.max_total_tokens,
             "maxLlmCalls": request.max_llm_calls, "maxWallSeconds": request.max_wall_seconds}
    return {cap: value for cap, value in given.items() if value is not None}


def effective_budget(request: RunRequest) -> Any:
    """The caps this run keeps to: the plan's (or a sweep member's share), with the command line's overrides."""
    return (request.budget or request.plan.budget).model_copy(update=cap_overrides(request))


def prepare_prices(request: RunRequest) -> PriceTable:
    """The price table, or ``PriceUnknown`` before anything runs (X-22)."""
    s = request.settings
    return build_price_table(request.plan, {"agent": s.agent_model, "maintainer": s.maintainer_model},
                             request.cli_prices, effective_budget(request).maxUsd, s.api_base)


TEMPLATED = ("local", "hosted_vllm")
"""The routes whose server renders the messages with a chat template the preflight can ask about."""


def check_params(request: RunRequest) -> None:
    """Before anything runs: ``ParamsRefused`` when the agent's model does not take a provider parameter the plan
    sets (litellm refuses it, or leaves it out of every call), naming the parameter, the model and the fix.
    A sampling value it does not take is not refused: the calls leave it out (``agent_limits``)."""
    s = request.settings
    calls = agent_calls(s.agent_model, request.plan.models, request.plan.budget.maxOutputTokensPerCall,
                        maintainer=s.maintainer_model)
    if calls.refused:
        raise ParamsRefused.of(s.agent_model, calls.refused)


def run_preflight(request: RunRequest, groups: list[Any],
                  prompts: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The provider preflight (P-80) of every group on the agent model, before any call: the verdicts
    on the bodies litellm builds offline for the group's first request (its first selected stage's first
    input, with the plan's agent, tools, output cap and sampling as sent) and for the same session one
    business tool call later (a tool loop, carrying what a thinking model of the route returns with a call).
    ``sent`` is False for a group the provider is known to reject, unless ``--send-rejected``. On a loopback
    ``api_base`` the local server is asked once per request how it renders the body
    (``harness.preflight.LocalServer``, bounded by its timeout); ``prompts`` (when given) receives each
    rendered prompt as ``GROUP.REQUEST`` → text."""
    from harness.preflight import first_request, local_server, preflight, returned_reasoning, tool_loop_request
    from harness.wire import provider_of, route_of

    plan, s = request.plan, request.settings
    limits = agent_limits(plan, agent_calls(s.agent_model, plan.models, plan.budget.maxOutputTokensPerCall,
                                            maintainer=s.maintainer_model))
    host = HostOptions(maintenance=plan.maintenance)
    tools = BusinessTools({k: v.model_dump() for k, v in plan.agent.projects.items()}).schemas()
    scripted = s.agent_model.startswith("scripted/")
    route = None if scripted else route_of(s.agent_model, provider_of(s.agent_model), s.api_base)
    # a server whose chat template decides (one per run: it says what it is once); a provider's own API on a
    # loopback address (a gateway, an emulator) renders no template
    server = local_server(s.agent_model, s.api_base) if route is not None and route.name in TEMPLATED else None
    reasoning = None if route is None else returned_reasoning(s.agent_model, route, limits.extra)
    out = []
    for group in groups:
        stage = next((st for st in plan.stages if (s.stages is None or st.id in s.stages)
                      and any(g.id == group.id for g in plan.participants(st))), None)
        if stage is None:
            continue
        protocol = resolve(group.protocol.id, group.protocol.version, group.protocol.options)
        text = stage.turns[0].input

        def sent(projected: Any) -> ModelRequest:
            return ModelRequest(messages=projected.messages, tools=projected.tools,
                                max_output_tokens=limits.max_output_tokens, temperature=limits.temperature,
                                top_p=limits.top_p, seed=limits.seed, timeout_seconds=limits.timeout_seconds,
                                extra=limits.extra)

        first = sent(first_request(protocol, plan.agent.config(), text, host, tools))
        looped = None if scripted else tool_loop_request(protocol, plan.agent.config(), text, host, tools, reasoning)
        verdict = preflight(protocol, s.agent_model, s.api_base, request=first,
                            tool_loop=None if looped is None else sent(looped), server=server)
        if prompts is not None:
            prompts.update({f"{group.id}.{r.request}": r.prompt for r in verdict.rendered if r.prompt})
        out.append({"group": group.id, "stage": stage.id, **verdict.model_dump(mode="json"),
                    "sent": verdict.verdict != "rejected" or s.send_rejected})
    return out


def held_groups(checks: list[dict[str, Any]]) -> dict[str, str]:
    """group → the reason its trials are skipped: the rule by which the provider rejects its requests."""
    return {c["group"]: f"not sent: preflight {c['rule'] or c['verdict']}: the provider rejects this group's "
                        f"requests ({c['model']}); harness run --send-rejected sends them"
            for c in checks if not c["sent"]}


async def execute(request: RunRequest, on_trial: ProgressHook | None = None, *, on_stage: StageHook | None = None,
                  on_call: Callable[[dict[str, Any]], None] | None = None,
                  on_start: Callable[[], None] | None = None) -> RunOutcome:
    """Run the experiment in ``request.out_dir``, holding the directory's lock throughout (``_lock``).
    Hooks (all optional, for progress views): ``on_start`` once the run really starts (the lock is
    held, the directory written and the store open: a refused run never calls it), ``on_trial`` per
    finished trial, ``on_stage`` as a group enters / leaves a stage, ``on_call`` per settled model
    call (the ledger's record: model, ok, tokens, usd).

    Raises ``RunLocked`` when another process holds the directory, ``ResumeRefused`` for a wrong
    resume, ``StorageError`` when the directory (or the ``--cache`` folder) cannot be written before
    the run started or its outputs cannot be written after it (a refused write during the run stops
    it instead: ``RunOutcome.storage_error``)."""
    # The workers start first. Spawned, their litellm imports run beside this process's own (the prices and the
    # parameter check below import it). Forked (models.workers._fork), they are made at ``ready`` in ``_execute``,
    # after the preflight, and inherit litellm as those left it. A run refused below ends them.
    async with model_workers(request.settings) as workers:
        with run_collector():  # a run keeps its objects a while (harness.run_collector)
            prices = prepare_prices(request)
            check_params(request)  # a parameter the model does not take: refused before any directory or call
            run_dir = RunDir(request.out_dir)
            if request.resume:
                run_dir.check_resume(request.plan_sha256)  # before the lock: a mistyped path makes no directory
            if request.settings.cache_dir is not None:
                check_cache(request.settings.cache_dir)  # an unusable --cache: exit 2 before any directory or call
            with exclusive(request.out_dir, "harness run"):
                return await _execute(request, prices, run_dir, on_trial, on_stage, on_call, on_start, workers)


@asynccontextmanager
async def model_workers(settings: Settings) -> AsyncIterator[ModelWorkers | None]:
    """The run's model workers (``--model-workers``), ended with the run whatever ends it; none when
    the setting is 0 or both models are ``scripted/*`` (which always run in this process)."""
    if settings.model_workers < 1 or all(map(stays_in_process, (settings.agent_model, settings.maintainer_model))):
        yield None
        return
    async with ModelWorkers(settings.model_workers) as workers:
        yield workers


async def _execute(request: RunRequest, prices: PriceTable, run_dir: RunDir, on_trial: ProgressHook | None,
                   on_stage: StageHook | None, on_call: Callable[[dict[str, Any]], None] | None,
                   on_start: Callable[[], None] | None, workers: ModelWorkers | None) -> RunOutcome:
    plan, settings = request.plan, request.settings
    if request.resume:
        manifest = run_dir.check_resume(request.plan_sha256)
        check_same_overrides(manifest.get("overrides"), request.override_spec, str(run_dir.path))
    groups = [g for g in plan.groups if settings.groups is None or g.id in settings.groups]
    prompts: dict[str, str] = {}
    checks = run_preflight(request, groups, prompts)
    if workers is not None:
        await workers.ready()  # spawned: their litellm imports ran beside the preflight; forked: made now
    if request.resume:
        run_dir.update_manifest(settings=recorded_settings(request), resumedAt=now())
    else:
        created = now()
        run_dir.create({
            "experimentId": f"{plan.id}@{created}", "planSha256": request.plan_sha256, "planId": plan.id,
            "planPath": request.plan_path,
            "createdAt": created, "harnessVersion": harness.__version__, "agentModel": settings.agent_model,
            "maintainerModel": settings.maintainer_model, "apiBase": public_api_base(settings.api_base),
            "settings": recorded_settings(request), "overrides": request.override_spec.stored(),
        })
        run_dir.write_plan(plan)
    run_dir.write_rendered(prompts)  # a resume renders again and keeps what the server says now
    previous = run_dir.records() if request.resume else []
    try:
        store = SqliteStore(run_dir.store_path)
    except Exception as exc:
        if not storage_problem(exc):
            raise
        raise StorageError(run_dir.path, exc) from None

    def settled(call: dict[str, Any]) -> None:
        run_dir.append_call(call)
        if on_call is not None:
            on_call(call)

    ledger = BudgetLedger(effective_budget(request), prices, on_settle=settled)
    if request.resume:
        ledger.restore(run_dir.spent(), run_dir.calibration())
    experiment = Experiment(plan=plan, settings=settings, ledger=ledger, prices=prices, run_dir=run_dir,
                            store=store, previous=previous, on_trial=on_trial, on_stage=on_stage,
                            held=held_groups(checks), workers=workers)
    if on_start is not None:
        on_start()
    with interrupt_handlers(ledger):  # the outputs too: a Ctrl-C never tears report.json or the manifest
        try:
            await experiment.run()
        finally:
            if workers is not None:
                await workers.aclose()  # no call is left; the outputs need no worker
            try:
                run_dir.close()  # waits for the last fsync
            except StorageError as exc:  # the disk refused it: the last lines may not be on disk
                experiment.storage_error = experiment.storage_error or exc
        try:
            return _outputs(request, experiment, run_dir, checks)
        finally:
            _close(store)


def _outputs(request: RunRequest, experiment: Experiment, run_dir: RunDir,
             checks: list[dict[str, Any]]) -> RunOutcome:
    """report.json, metrics.duckdb, the rendering and the manifest's status. A disk that refuses
    them raises ``StorageError`` (exit 2; what the trials recorded stays, resumable), unless
    report.json got written: then the run is a stopped run with a partial report (exit 3)."""
    stop_reason = experiment.stopping
    if stop_reason == "interrupted" and not experiment.stopped_anything():
        stop_reason = None  # the Ctrl-C came after every trial had finished: the run is completed
    status = "stopped" if stop_reason else "completed"
    experiment_id = str(run_dir.manifest().get("experimentId") or f"{request.plan.id}@{request.out_dir.name}")
    report = build_report(experiment, request, experiment_id, status, stop_reason, checks)
    storage_error, render_error = experiment.storage_error, None
    try:
        _, render_error = write_outputs(request, experiment, experiment_id, status, stop_reason, checks, report)
        run_dir.update_manifest(status=status, stopReason=stop_reason, finishedAt=now())
    except Exception as exc:
        if not storage_problem(exc):
            raise
        error = exc if isinstance(exc, StorageError) else StorageError(run_dir.path, exc)
        if not _written(request.out_dir / "report.json", report):
            raise error from None
        storage_error = storage_error or error
        status, stop_reason = "stopped", stop_reason or "storage_error"
    return RunOutcome(run_dir=request.out_dir, status=status, stop_reason=stop_reason, report=report,
                      experiment=experiment, render_error=render_error, storage_error=storage_error)


def _written(path: Path, report: Report) -> bool:
    """Whether ``path`` holds ``report`` (written before a later output hit the full disk)."""
    try:
        return read_report(path).createdAt == report.createdAt
    except ReportError:
        return False


def _close(store: SqliteStore) -> None:
    try:
        store.close()
    except Exception as exc:  # a full disk may refuse the last checkpoint; the WAL keeps the data
        if not storage_problem(exc):
            raise
