"""``harness run PLAN``: run an experiment (O-1, O-24, O-25, O-26).

Exit codes: 0 the experiment ran to its end (whatever the verdicts) and met every expectation,
2 invalid input or usage, 3 stopped early (budget, stop condition, interrupt; the report is still
written), 4 an expectation unmet, 5 ``--strict`` and a design problem (nothing ran; order and rules in
``_run_gate``), 1 a defect, 130 a Ctrl-C before the run started or while the report of a completed
run was rendered. ``--dry-run`` shows the design review ``harness validate`` shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import (
    DOC_CACHE,
    DOC_EXPECT,
    DOC_JUNIT,
    DOC_MODEL,
    DOC_REASONING,
    DOC_REPEATS,
    DOC_SEED,
    DOC_STRICT,
    DOC_TEMPERATURE,
    EXIT_CODES,
    EXIT_INVALID,
    ReasoningChoice,
    app,
    err_console,
    fail,
    interruptible,
    reflow_help,
)

if TYPE_CHECKING:
    from harness.plan import Plan
    from harness.runner import RunRequest

_DOC_TOKENS = ("Total-token cap, input + output (overrides the plan's maxTotalTokens); in a sweep, the pool all models "
               "share. Raise it to resume a run stopped at budget_exhausted:totalTokens.")
_DOC_CALLS = ("Model-call cap (overrides the plan's maxLlmCalls); in a sweep, the pool all models share. Raise it to "
              "resume a run stopped at budget_exhausted:llmCalls.")
_DOC_WALL = ("Wall-clock cap in seconds (overrides the plan's maxWallSeconds); a resume counts the time already run. "
             "Raise it to resume a run stopped at wall_clock.")
_DOC_SEND_REJECTED = ("Send a group's requests even when the preflight says the provider rejects them (by "
                      "default its trials are skipped, naming the rule): to see the provider's answer.")
_DOC_WORKERS = ("Run litellm's part of each model call (its request set-up, the HTTP client, its pricing and "
                "logging: 5 to 8 ms of CPU a call) in N worker processes, many calls at once in each; the run itself "
                "stays in this process. Default 0: every call in this process. Worth it against a fast server "
                "(vLLM, SGLang, a hosted model) at a high --concurrency on a machine with a spare core, where one "
                "process would make the run wait on the harness, not the model. On Linux each worker is forked from "
                "this process once it has imported litellm and is ready in milliseconds; elsewhere, or with "
                "HARNESS_WORKER_START=spawn, each is a fresh interpreter that imports litellm (about 2 s of CPU). What "
                "is sent and recorded is the same either way. scripted/* models always run in this process. A resume "
                "keeps the run's setting.")
_DOC_PRICE = "Price of a model in USD per million tokens: MODEL=IN,OUT[,CACHED] (overrides the plan and litellm)."


def _plan_errors(path: str, errors: list[str]) -> None:
    err_console.print(f"error: invalid plan {path} ({len(errors)} problem(s)):", markup=False, highlight=False,
                      soft_wrap=True)
    for line in errors:
        err_console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_INVALID)


def _check_selection(plan: Plan, groups: list[str] | None, stages: list[str] | None) -> None:
    """Every --group and --stage names something that exists and has trials in this selection: a
    selected stage no selected group takes part in would run nothing, yet appear chosen."""
    known_g, known_s = [g.id for g in plan.groups], [s.id for s in plan.stages]
    bad = [f"--group {g}: no such group (plan has {', '.join(known_g)})" for g in groups or [] if g not in known_g]
    bad += [f"--stage {s}: no such stage (plan has {', '.join(known_s)})" for s in stages or [] if s not in known_s]
    if bad:
        fail("; ".join(bad))
    chosen_s = [s for s in plan.stages if stages is None or s.id in stages]
    takes = {s.id: [g.id for g in plan.participants(s) if groups is None or g.id in groups] for s in chosen_s}
    bad = [f"--stage {s}: none of the selected groups takes part in it (its groups: "
           f"{', '.join(g.id for g in plan.participants(plan.stage(s)))})" for s in stages or [] if not takes[s]]
    bad += [f"--group {g}: takes part in none of the selected stages" for g in groups or []
            if not any(g in ids for ids in takes.values())]
    if bad:
        fail("; ".join(bad))


@app.command("run")
@interruptible
@reflow_help
def run_cmd(
    plan_path: str = typer.Argument(..., metavar="PLAN", help="The experiment plan JSON file."),
    model: Annotated[list[str] | None, typer.Option("--model", help=DOC_MODEL)] = None,
    maintainer_model: str | None = typer.Option(None, "--maintainer-model",
                                                help="Maintainer model; default: the agent's."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL (no credentials)."),
    group: Annotated[list[str] | None, typer.Option("--group", help="Run only this group (repeatable).")] = None,
    stage: Annotated[list[str] | None, typer.Option("--stage", help="Run only this stage (repeatable).")] = None,
    concurrency: int | None = typer.Option(None, "--concurrency", min=1, max=256,
                                           help="Trials running at once (default 4; a resume keeps the run's); "
                                                "for a local server, its slot count."),
    model_workers: int | None = typer.Option(None, "--model-workers", min=0, max=64, metavar="N",
                                             help=_DOC_WORKERS),
    out: Annotated[Path | None, typer.Option("--out", help="Run directory; default reports/<plan-id>/<UTC time>/.")]
    = None,
    resume: Annotated[Path | None, typer.Option(
        "--resume", help="Continue the run in this directory, with the settings it was started with.")] = None,
    max_usd: float | None = typer.Option(None, "--max-usd", min=0.0, help="USD cap (overrides the plan's)."),
    max_total_tokens: int | None = typer.Option(None, "--max-total-tokens", min=1, help=_DOC_TOKENS),
    max_llm_calls: int | None = typer.Option(None, "--max-llm-calls", min=1, help=_DOC_CALLS),
    max_wall_seconds: float | None = typer.Option(None, "--max-wall-seconds", min=1.0, help=_DOC_WALL),
    price: Annotated[list[str] | None, typer.Option("--price", help=_DOC_PRICE)] = None,
    dry: bool = typer.Option(False, "--dry-run", help="Validate and show what would run, with the provider "
                                                      "preflight of every group; call no model."),
    send_rejected: bool = typer.Option(False, "--send-rejected", help=_DOC_SEND_REJECTED),
    cache: Annotated[Path | None, typer.Option("--cache", help=DOC_CACHE)] = None,
    expect: Annotated[list[str] | None, typer.Option("--expect", help=DOC_EXPECT)] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help=DOC_JUNIT)] = None,
    temperature: float | None = typer.Option(None, "--temperature", help=DOC_TEMPERATURE),
    seed: int | None = typer.Option(None, "--seed", help=DOC_SEED),
    repeats: Annotated[list[str] | None, typer.Option("--repeats", help=DOC_REPEATS)] = None,
    strict: bool = typer.Option(False, "--strict", help=DOC_STRICT),
    reasoning_effort: Annotated[ReasoningChoice | None, typer.Option("--reasoning-effort", help=DOC_REASONING)]
    = None,
) -> None:
    """Run an experiment plan: staged groups, budgets, checks, report.json and metrics.duckdb.

    One --model runs the plan into one run directory. Several --model options make a model sweep:
    the plan runs once per model, one after another, into one sweep directory D (--out): D/<model>/
    is each model's ordinary run directory, D/sweep.json, D/sweep.html and D/sweep.md hold the
    model × group × stage table and the findings across models. The budget (the plan's caps, or
    --max-usd, --max-total-tokens, --max-llm-calls) is one pool shared by the whole sweep, so N models
    need about N times one model's tokens and calls: the fixed plan's 600,000 tokens fit one
    scripted/oracle run, and its two-model sweep needs --max-total-tokens 1200000. Every model's price
    is checked before the first call. --resume D continues a sweep as it continues a run.

    --resume DIR continues a stopped run: finished trials are kept, errored and unfinished ones run
    again as new attempts (each attempt keeps its own record and transcript), and the budget already
    spent counts. The run's settings (models, --api-base, --group, --stage, --concurrency, --model-workers, --cache,
    --max-usd, --max-total-tokens, --max-llm-calls, --max-wall-seconds, --price) are restored from
    DIR/run.json; an option given again overrides its recorded value. A run stopped at a cap
    (budget_exhausted:totalTokens, wall_clock) would stop again at once with the same cap: the stop
    message names the cap, its limit and what was spent, and the printed resume command raises it
    (--max-total-tokens, --max-llm-calls, --max-usd, --max-wall-seconds).
    One process at a time runs a directory: a second one is refused (exit 2) with the holder's
    pid, host and start time.

    --cache DIR answers a request asked before (same model, messages, tools, sampling, repeat)
    from DIR instead of calling the model: a second identical run costs nothing. Cached responses
    are marked in the calls and the report and never count as spent.

    A model on a loopback --api-base (llama.cpp, vLLM, Ollama) runs without a price unless --price
    gives one: its cost reads "price unknown (local model)" and maxUsd does not apply to it (token and
    call caps do). Set --concurrency to the server's slot count (scripts/llama_server.sh prints it);
    a context-length refusal stops the run at once (context_limit) with what to change. Without a
    terminal (nohup, CI), a plain progress line is printed at least every 30 s.

    Before any call, the preflight builds each group's first request as the provider receives it
    (litellm's own transformation, offline) and applies the provider rules (P-80): a group the provider
    is known to reject (e.g. a trailing assistant message on Claude 4.6+, an assistant-first request on
    Bedrock) is not sent, its trials skipped with the rule named, unless --send-rejected. --dry-run
    prints these verdicts and the turns each provider receives.

    CI gate: --expect A:simple=passed (repeatable, added to the plan's expect list) makes the run exit 4
    when a stage ends otherwise; --junit FILE writes one JUnit test case per trial. Quick overrides:
    --temperature, --seed, --repeats STAGE=N and --reasoning-effort replace the plan's values for this run; report.json
    records them as overrides, and --resume refuses a run directory that ran with other overrides
    (given none, a resume reuses the recorded ones). --dry-run shows the plan's design review (what each
    comparison can show at its n, as `harness validate` does); --strict exits 5 before any model call when
    it finds a problem.

    {exit_codes}
    """
    from harness.plan import PlanError, load_plan
    from harness.results import is_sweep
    from harness.runner import (
        ParamsRefused,
        PriceUnknown,
        ResumeRefused,
        RunChoices,
        RunDir,
        RunRequest,
        Settings,
        check_params,
        default_out_dir,
        parse_price,
        prepare_prices,
        read_settings,
        restore,
    )

    from ._run_gate import design_gate, dry_code, prepare
    from ._run_sweep import run_sweep
    from ._run_view import dry_run, price_refused

    try:
        plan, sha256 = load_plan(plan_path)
    except PlanError as exc:
        _plan_errors(plan_path, exc.errors)
        return
    if out is not None and resume is not None and out != resume:
        fail("--out and --resume name different directories; --resume continues the run where it is")
    gate = prepare(plan, expect, junit, temperature, seed, repeats, resume, reasoning_effort)
    plan = gate.plan
    try:
        prices = dict(parse_price(p) for p in price or [])
    except ValueError as exc:
        fail(str(exc))
    given = RunChoices(models=model or [], maintainer=maintainer_model, api_base=api_base, groups=group or None,
                       stages=stage or None, concurrency=concurrency, max_usd=max_usd,
                       max_total_tokens=max_total_tokens, max_llm_calls=max_llm_calls,
                       max_wall_seconds=max_wall_seconds, prices=prices, cache_dir=cache,
                       send_rejected=send_rejected or None, model_workers=model_workers)
    sweep = len(given.models) > 1 or (resume is not None and is_sweep(resume))
    manifest = {}
    if resume is not None:
        try:
            manifest = {} if sweep else RunDir(resume).check_resume(sha256)
            given = restore(given, read_settings(resume, sweep))
        except ResumeRefused as exc:
            fail(str(exc))
    _check_selection(plan, given.groups, given.stages)
    if sweep:
        settings = Settings(agent_model="-", maintainer_model="-", api_base=given.api_base or plan.models.apiBase,
                            groups=given.groups, stages=given.stages, concurrency=given.concurrency or 4,
                            cache_dir=given.cache_dir, send_rejected=bool(given.send_rejected),
                        model_workers=given.model_workers or 0)
        base = RunRequest(plan=plan, plan_sha256=sha256, plan_path=plan_path, settings=settings,
                          out_dir=resume or out or default_out_dir(plan), max_usd=given.max_usd,
                          max_total_tokens=given.max_total_tokens, max_llm_calls=given.max_llm_calls,
                          max_wall_seconds=given.max_wall_seconds, cli_prices=given.prices, expect=gate.expect,
                          override_spec=gate.spec, overrides=gate.overrides)
        raise typer.Exit(run_sweep(base, given.models, given.maintainer, resume is not None, dry, junit, strict))
    agent = given.models[0] if given.models else plan.models.agent
    maintainer = given.maintainer or plan.models.maintainer or agent
    if resume is not None and (agent, maintainer) != (manifest.get("agentModel"), manifest.get("maintainerModel")):
        fail(f"{resume} ran {manifest.get('agentModel')} / {manifest.get('maintainerModel')}; a resumed run keeps "
             "its models")
    if agent.startswith("scripted/") and plan.models.agent_params():
        fail(f"agent {agent}: scripted models take no provider parameters (models.reasoningEffort, "
             "--reasoning-effort, models.params); they never reason")
    if agent.startswith("scripted/") != maintainer.startswith("scripted/"):
        fail(f"agent {agent} and maintainer {maintainer}: scripted and real models are never mixed in one run (X-42)")
    settings = Settings(agent_model=agent, maintainer_model=maintainer, api_base=given.api_base or plan.models.apiBase,
                        groups=given.groups, stages=given.stages, concurrency=given.concurrency or 4,
                        cache_dir=given.cache_dir, send_rejected=bool(given.send_rejected),
                        model_workers=given.model_workers or 0)
    request = RunRequest(plan=plan, plan_sha256=sha256, plan_path=plan_path, settings=settings,
                         out_dir=resume or out or default_out_dir(plan), resume=resume is not None,
                         max_usd=given.max_usd, max_total_tokens=given.max_total_tokens,
                         max_llm_calls=given.max_llm_calls, max_wall_seconds=given.max_wall_seconds,
                         cli_prices=given.prices, expect=gate.expect,
                         override_spec=gate.spec, overrides=gate.overrides)
    try:
        table = prepare_prices(request)
    except PriceUnknown as exc:
        raise typer.Exit(price_refused(exc)) from None
    try:
        check_params(request)  # a parameter the model does not take: named with its fix, before any call
    except ParamsRefused as exc:
        fail(str(exc))
    review = design_gate(plan, strict, dry)
    if dry:
        dry_run(request, table, review)
        raise typer.Exit(dry_code(review, strict))
    raise typer.Exit(_execute(request, junit))


run_cmd.__doc__ = (run_cmd.__doc__ or "").replace("{exit_codes}", EXIT_CODES)


def _execute(request: RunRequest, junit: Path | None) -> int:
    import asyncio

    from harness.runner import RunOutcome, execute

    from ._run_gate import finish_run
    from ._run_view import Progress, guarded, summary

    progress = Progress(request)

    def work() -> RunOutcome:
        with progress:
            outcome = asyncio.run(execute(request, **progress.hooks()))
            progress.stop_reason = outcome.stop_reason  # the last progress line says the run stopped
            return outcome

    outcome = guarded(work, request.out_dir, request.plan_path)
    if isinstance(outcome, int):
        return outcome
    summary(outcome)
    return finish_run(outcome, junit)
