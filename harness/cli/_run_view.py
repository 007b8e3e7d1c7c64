"""What ``harness run`` shows: progress (``_progress``), the final group × stage table, the dry run."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.table import Table

from harness.analysis import DesignReview
from harness.business_tools import BusinessTools
from harness.models.workers import StartError
from harness.results import is_sweep, unknown_usd
from harness.runner import (
    MANIFEST,
    BudgetStop,
    PriceTable,
    PriceUnknown,
    ResumeRefused,
    RunDir,
    RunLocked,
    RunOutcome,
    RunRequest,
    StorageError,
    _stops,
    budget_stop,
    resume_command,
)
from harness.runner._cache import CACHE_FOLDER
from harness.runner._execute import cap_overrides, effective_budget, run_preflight
from harness.runner._outputs import RENDER_INTERRUPTED
from protocols import FrozenView, MessageDraft, new_run_id, resolve
from protocols.store import MemoryStore

from . import _app
from ._app import EXIT_DEFECT, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_STOPPED, NOT_STARTED, err_console, plain
from ._design_view import print_review
from ._progress import Progress, console
from ._validate import planned_trials, summary_table

T = TypeVar("T")

__all__ = ["Progress", "budget_text", "console", "continue_hint", "dry_run", "guarded", "preflight_lines",
           "price_refused", "server_lines", "summary", "where"]
_COLOURS = {"passed": "green", "failed": "red", "inconclusive": "yellow", "skipped": "grey50",
            "not_reached": "grey50"}


def usd_text(value: float | None, report: dict[str, Any]) -> str:
    return unknown_usd(report) if value is None else f"${value:.4f}"


def _stage_usd(metrics: dict[str, Any]) -> str:
    """A stage's USD cell: "—" when it made no call (a local model's cost is never shown as $0)."""
    if not metrics["llmCalls"]:
        return "—"
    return "unknown" if metrics["usd"] is None else f"{metrics['usd']:.4f}"


def wire_shape(wire: dict[str, Any] | None) -> str:
    """The turns a provider receives: ``assistant[header] · user[user input + state]``."""
    turns = (wire or {}).get("turns") or []
    return " · ".join(f"{t['role']}[{' + '.join(dict.fromkeys(t['blocks'])) or 'empty'}]" for t in turns)


def unsent_lines(agent: str, maintainer: str, calls: Any) -> list[str]:
    """The plan's sampling values a model of the run does not take (litellm's own validation, offline): not sent."""
    out = [f"not sent: {u.name} {u.value:g} to {agent}: litellm {'refuses' if u.refused else 'leaves out'} it for "
           f"this model ({u.why}); the agent's calls sample at the provider's default (report.json model.notSent)"
           for u in calls.unsent if u.sampling]
    out += [f"not sent: the maintainer's temperature {u.value:g} to {maintainer}: litellm "
            f"{'refuses' if u.refused else 'leaves out'} it ({u.why})" for u in calls.maintainer_unsent]
    return out


def server_lines(entries: list[dict[str, Any]]) -> list[str]:
    """The local server the preflight asked, said once for the run (P-80): what it is and how it renders."""
    server = next((p["localServer"] for p in entries if p.get("localServer")), None)
    if server is None:
        return []
    return [f"  local server {server['apiBase']}: {server['message']}"]


def preflight_lines(entries: list[dict[str, Any]], everything: bool = True) -> list[str]:
    """The preflight per group (P-80): verdict, rule, whether sent, what the provider does; with
    ``everything`` the wire shape of its first request, the state message's treatment and its rule, and the
    tool loop's verdict and treatment (the run summary lists only flagged groups, one line each)."""
    lines = []
    for p in entries:
        if not everything and not p.get("flagged"):
            continue
        rule = f" ({p['rule']})" if p.get("rule") else ""
        sent = "" if p.get("sent", True) else ", not sent (--send-rejected sends it)"
        loop = p.get("toolLoop") or {}
        message = f"in a tool loop: {loop['message']}" if p.get("decidedBy") == "tool_loop" and loop else p["message"]
        lines.append(f"  {p['group']}: {p['verdict']}{rule}{sent}: {message}")
        if not everything:
            continue
        if p.get("wire"):
            lines.append(f"    wire: {wire_shape(p['wire'])}")
        lines.append(f"    state message: {_treated(p)}")
        if loop:
            lines.append(f"    tool loop: {loop['verdict']}" + (f" ({loop['rule']})" if loop.get("rule") else "")
                         + f"; state message {_treated(loop)}; wire: {wire_shape(loop.get('wire'))}")
    return lines


def _treated(p: dict[str, Any]) -> str:
    """``TREATMENT (RULE): detail``, or that the request carries no state message."""
    if not p.get("treatment"):
        return "none in this request"
    by = f" ({p['treatmentRule']})" if p.get("treatmentRule") else " (no rule)"
    return f"{p['treatment']}{by}" + (f": {p['treatmentDetail']}" if p.get("treatmentDetail") else "")


def summary(outcome: RunOutcome, hint: bool = True) -> None:
    """The group × stage table, findings, spending and where the report is; for a stopped run, why
    and (``hint``; a sweep prints its own) the exact command that continues it."""
    report = outcome.report.model_dump(mode="json")
    table = Table(title=plain(f"{report['plan']['id']}: {report['status']}"
                              + (f" ({report['stopReason']})" if report["stopReason"] else "")), title_justify="left")
    for column in ("group", "stage", "status", "pass rate", "usd", "tokens", "repeated calls"):
        table.add_column(column, justify="left" if column in ("group", "stage", "status") else "right")
    for group in report["groups"]:
        for stage in group["stages"]:
            rate = stage["passRate"]
            m = stage["metrics"]
            colour = _COLOURS.get(stage["status"], "white")
            table.add_row(plain(group["id"]), plain(stage["id"]), f"[{colour}]{plain(stage['status'])}[/]",
                          f"{rate['passes']}/{rate['n']}", _stage_usd(m),
                          f"{m['inputTokens'] + m['outputTokens']:,}", str(m["repeatedToolCalls"]))
    console.print(table)
    for finding in report["findings"]:
        console.print(f"[bold]finding[/] {plain(finding['rule'])}: {plain(finding['statement'])}", soft_wrap=True)
        console.print(f"  does not show: {finding['doesNotShow']}", markup=False, soft_wrap=True)
    if report["findings"] and outcome.report.family is not None:
        console.print(outcome.report.family.line(), markup=False, soft_wrap=True)
    spent = report["budget"]["spent"]
    n_cached = spent.get("cachedResponses")
    cached = f" ({n_cached} responses from the cache, not counted)" if n_cached else ""
    console.print(f"spent {usd_text(spent['usd'], report)}, {spent['llmCalls']} model calls{cached}, "
                  f"{spent['inputTokens'] + spent['outputTokens']:,} tokens, {spent['wallSeconds']:.1f} s",
                  markup=False)
    from harness.rendering._workflow import console_lines  # here: harness.rendering imports matplotlib

    for line in console_lines(report):  # overrides and infrastructure
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    for line in model_lines(report):  # where a price came from when it may surprise; reasoning settings
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    flagged = preflight_lines(report.get("preflight") or [], everything=False)
    if flagged:
        console.print(f"preflight on {report['model']['agent']} (the provider rules, checked before any call):",
                      markup=False, soft_wrap=True)
    for line in flagged:
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    for cap, why in (report["budget"].get("notApplicable") or {}).items():
        console.print(f"{cap} not applicable: {why}", markup=False, soft_wrap=True)
    if report.get("stopDetail"):
        console.print(f"stopped ({report['stopReason']}): {report['stopDetail']}", markup=False, soft_wrap=True)
    where(outcome.run_dir, "report", outcome.render_error)
    if outcome.storage_error is not None:
        err_console.print(f"error: {outcome.storage_error}; the run stopped, what it recorded is kept",
                          markup=False, highlight=False, soft_wrap=True)
    if outcome.stop_reason and hint:
        continue_hint(report["plan"]["path"], outcome.run_dir, budget_stop(
            outcome.stop_reason, report["budget"]["limits"], report["budget"]["spent"]))


def model_lines(report: dict[str, Any]) -> list[str]:
    """A price that a loopback api_base could make ambiguous (a gateway's, a local model's), and the
    agent's reasoning settings with the reasoning tokens they cost."""
    model = report.get("model") or {}
    out = []
    for name, price in sorted((model.get("prices") or {}).items()):
        if price.get("source") == "litellm-gateway":
            out.append(f"price of {name}: litellm's price for {name} (served through the gateway at "
                       f"{price.get('gateway')})")
        elif price.get("source") == "local-unknown":
            out.append(f"price of {name}: price unknown (local model)")
    if model.get("reasoningEffort") or model.get("params"):
        budget = model.get("thinkingBudgetTokens")
        reasoning = sum((g.get("metrics") or {}).get("reasoningTokens", 0) for g in report.get("groups", []))
        effort = model.get("reasoningEffort") or "not set"
        out.append(f"reasoning: effort {effort} for the agent's calls (the maintainer's: none)"
                   + (f", thinking budget {budget:,} tokens added to each agent call's output cap" if budget else "")
                   + (f"; params {', '.join(sorted(model['params']))}" if model.get("params") else "")
                   + f"; {reasoning:,} reasoning tokens (inside output tokens, billed as output)")
    return out


def continue_hint(plan_path: str, directory: Path, stop: BudgetStop | None) -> None:
    """How a stopped run (or sweep) continues: the resume command, with the option raising the cap
    it stopped at (``budget_stop``); for a cap no option raises, says that a resume cannot continue."""
    if stop is not None:
        console.print(f"stopped at a cap: {stop.text}", markup=False, soft_wrap=True)
        if not stop.option:
            console.print("a resume with the same cap cannot continue", markup=False, soft_wrap=True)
            return
    console.print(f"continue with: {resume_command(plan_path, directory, stop.option if stop else None)}",
                  markup=False, soft_wrap=True)


def where(directory: Path, name: str, render_error: str | None) -> None:
    """Where the written report is (``name``.json, ``name``.html), and a rendering failure if any."""
    if render_error == RENDER_INTERRUPTED:
        console.print(f"the {name} rendering was interrupted (Ctrl-C): {name}.json is written; `harness report "
                      f"{directory}` renders {name}.html / {name}.md", markup=False, soft_wrap=True)
    elif render_error:
        console.print(f"{name}.html / {name}.md not rendered ({render_error}); try `harness report {directory}`",
                      markup=False, soft_wrap=True)
    console.print(f"{name}: {directory / (name + '.json')}", markup=False, soft_wrap=True)
    html = directory / f"{name}.html"
    if html.exists():
        console.print(f"open in a browser: {html.resolve().as_uri()}", markup=False, soft_wrap=True)


def price_refused(exc: PriceUnknown) -> int:
    """X-22: a remote model without a price while a USD cap is set; names each model and the fix."""
    err_console.print(f"error: no price for {len(exc.errors)} model(s) while a USD cap is set (X-22); nothing ran:",
                      markup=False, highlight=False, soft_wrap=True)
    for line in exc.errors:
        err_console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    return EXIT_INVALID


def guarded(work: Callable[[], T], out_dir: Path, plan_path: str) -> T | int:
    """``work()``, or the exit code of why it did not finish (O-24): a refused resume, an unknown
    price, an unknown ``HARNESS_WORKER_START``, a directory another process holds or a disk that refuses writes
    is the caller's or the environment's (2), a second Ctrl-C stops (3), anything else is a harness defect (1)."""
    _app.work_started = True
    try:
        return work()
    except PriceUnknown as exc:
        return price_refused(exc)
    except (ResumeRefused, RunLocked, StartError) as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_INVALID
    except StorageError as exc:
        storage_failed(exc, out_dir, plan_path)
        return EXIT_INVALID
    except KeyboardInterrupt:  # the first Ctrl-C of a run only stops it (runner._stops)
        if not (out_dir / MANIFEST).is_file() and not is_sweep(out_dir):
            err_console.print(NOT_STARTED, markup=False, soft_wrap=True)
            return EXIT_INTERRUPTED
        if (out_dir / MANIFEST).is_file() and RunDir(out_dir).manifest().get("status") == "completed":
            err_console.print(f"interrupted after the run completed; its report: {out_dir / 'report.json'}",
                              markup=False, soft_wrap=True)
            return EXIT_INTERRUPTED
        twice = "interrupted twice" if _stops.interrupts else "interrupted"
        err_console.print(f"{twice}: aborted; continue with: {resume_command(plan_path, out_dir)}",
                          markup=False, soft_wrap=True)
        return EXIT_STOPPED
    except Exception:  # a host defect: say so, with the traceback, and exit 1 (O-24)
        err_console.print("internal error (a harness defect, please report it):", markup=False)
        err_console.print(traceback.format_exc(), markup=False, highlight=False)
        return EXIT_DEFECT


def storage_failed(exc: StorageError, out_dir: Path, plan_path: str) -> None:
    """A folder the harness cannot write: named, and what to do; no traceback."""
    err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
    if exc.what == CACHE_FOLDER:
        err_console.print("no model was called; give a writable folder to --cache (or leave it out) and run again",
                          markup=False, soft_wrap=True)
    elif (out_dir / MANIFEST).is_file() or is_sweep(out_dir):
        err_console.print("what the run recorded before is kept; once the folder is writable and has space again, "
                          f"continue with: {resume_command(plan_path, out_dir)}", markup=False, soft_wrap=True)
    else:
        err_console.print("nothing ran; free space or choose a writable --out, then run again", markup=False,
                          soft_wrap=True)


def _first_request_tokens(request: RunRequest) -> int:
    """Tokens of the smallest request a trial makes: the first input of the first stage, fresh session."""
    from harness.engine import count_messages

    plan = request.plan
    g = plan.groups[0]
    protocol = resolve(g.protocol.id, g.protocol.version, g.protocol.options)
    store, run_id = MemoryStore(), new_run_id()
    store.create_session("dry", {"activeWindow": "main"})
    store.append("dry", MessageDraft(run_id=run_id, window_id="main", role="user", kind="input",
                                     content=plan.stages[0].turns[0].input, input_run=run_id))
    tools = BusinessTools({k: v.model_dump() for k, v in plan.agent.projects.items()}).schemas()
    projected = protocol.project(store, "dry", FrozenView(revision=0, upper_bound=1, run_id=run_id),
                                 plan.agent.config(),
                                 None, tools)
    return count_messages(request.settings.agent_model, projected.messages, projected.tools)


def budget_text(request: RunRequest) -> str:
    """The caps the run keeps to (the plan's, with the command line's overrides marked as such)."""
    budget, given = effective_budget(request), cap_overrides(request)
    caps = [(name, getattr(budget, name)) for name in ("maxUsd", "maxTotalTokens", "maxLlmCalls", "maxInputTokens",
                                                        "maxOutputTokens", "maxWallSeconds")]
    return ", ".join((f"{name} {value:,}" if isinstance(value, int) else f"{name} {value:,g}")
                     + (" (command line)" if name in given else "")
                     for name, value in caps if value is not None) or "no caps"


def dry_run(request: RunRequest, prices: PriceTable, review: DesignReview | None = None) -> None:
    """O-25: what would run and a cost range, then the design review when given (``harness validate``'s);
    no model is called. The estimate counts the selected groups the preflight lets through (a group the
    provider rejects is not sent) and each agent call's output cap as sent (any thinking budget included)."""
    from harness.models import Usage
    from harness.runner import agent_calls

    plan, s = request.plan, request.settings
    console.print(summary_table(plan))
    groups = [g for g in plan.groups if s.groups is None or g.id in s.groups]
    checks = run_preflight(request, groups)
    held = sorted({c["group"] for c in checks if not c["sent"]})
    turns = sum(len(st.turns) * st.repeats
                * sum(g.id not in held and (s.groups is None or g.id in s.groups) for g in plan.participants(st))
                for st in plan.stages if s.stages is None or st.id in s.stages)
    steps = plan.budget.maxStepsPerRun or 12
    out_cap = agent_calls(s.agent_model, plan.models, plan.budget.maxOutputTokensPerCall).max_output_tokens or 1024
    first = _first_request_tokens(request)
    low_calls, high_calls = turns, turns * steps
    low_in, high_in = low_calls * first, sum(first + i * (out_cap + 200) for i in range(steps)) * turns
    price = prices.get(s.agent_model)
    if price is None:
        cost = prices.note(s.agent_model).split(":")[0]
    else:
        low = price.cost(Usage(input_tokens=low_in, output_tokens=low_calls * 50))
        high = price.cost(Usage(input_tokens=high_in, output_tokens=high_calls * out_cap))
        cost = f"${low:.4f} – ${high:.4f}"
    console.print(f"model {s.agent_model} (maintainer {s.maintainer_model}); at most {planned_trials(plan)} "
                  f"trial(s), {turns} turn(s) sent", markup=False, soft_wrap=True)
    unsent = f" (not counted: {', '.join(held)}, which the preflight holds back)" if held else ""
    console.print(f"estimate: {low_calls}–{high_calls} model calls, {low_in:,}–{high_in:,} input tokens by "
                  f"litellm's counter (a local model's chat template may count more), cost {cost}{unsent}",
                  markup=False, soft_wrap=True)
    console.print(f"budget: {budget_text(request)}", markup=False, soft_wrap=True)
    calls = agent_calls(s.agent_model, plan.models, plan.budget.maxOutputTokensPerCall, maintainer=s.maintainer_model)
    for line in unsent_lines(s.agent_model, s.maintainer_model, calls):
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    console.print(f"preflight on {s.agent_model}: each group's first request, and the same session one tool call "
                  "later, as its provider receives them (built offline by litellm), the rules of its route they "
                  "meet, and what the state message becomes (own_message, merged, prefill, new_turn, rejected, "
                  "unknown):", markup=False, soft_wrap=True)
    for line in server_lines(checks):
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    for line in preflight_lines(checks):
        console.print(line, markup=False, soft_wrap=True, highlight=False)
    if checks and all(not c["sent"] for c in checks):
        console.print("every selected group is held back by the preflight: the run would reach no verdict and exit 6 "
                      "(--send-rejected sends them, to see the provider's answer)", markup=False, soft_wrap=True)
    for st in plan.stages:
        if st.sequential is not None and (s.stages is None or st.id in s.stages):
            console.print(f"{st.id} is sequential: looks at {', '.join(map(str, st.sequential.looks))} repeats "
                          f"({st.sequential.spending} spending); it stops at the first look where every comparison "
                          f"crosses its boundary, so it runs {st.sequential.looks[0]} to {st.repeats} repeats per "
                          "group", markup=False, soft_wrap=True)
    if review is not None:
        print_review(console, review)
    console.print("dry run: no model was called", markup=False)
