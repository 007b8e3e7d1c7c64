"""What ``harness run`` shows: progress bars per stage, the final group × stage table, the dry run."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from harness.business_tools import BusinessTools
from harness.runner import PriceTable, PriceUnknown, ResumeRefused, RunOutcome, RunRequest, TrialRecord
from protocols import FrozenView, MessageDraft, new_run_id, resolve
from protocols.store import MemoryStore

from ._app import EXIT_DEFECT, EXIT_INVALID, EXIT_STOPPED, err_console, plain
from ._validate import planned_trials, summary_table

T = TypeVar("T")

console = Console()
_COLOURS = {"passed": "green", "failed": "red", "inconclusive": "yellow", "skipped": "grey50",
            "not_reached": "grey50"}


class Progress:
    """One bar per stage; its total is the trials the stage would run if every group entered it."""

    def __init__(self, request: RunRequest) -> None:
        self.plan = request.plan
        self.bars = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[tally]}"), TimeElapsedColumn(), console=console,
                                 transient=False, disable=not console.is_terminal)
        self.tasks: dict[str, Any] = {}
        self.tally: dict[str, dict[str, int]] = {}
        selected = request.settings.stages
        groups = request.settings.groups
        for stage in self.plan.stages:
            if selected is not None and stage.id not in selected:
                continue
            n = sum(stage.repeats for g in self.plan.participants(stage) if groups is None or g.id in groups)
            self.tally[stage.id] = {}
            self.tasks[stage.id] = self.bars.add_task(stage.id, total=n, tally="")

    def __enter__(self) -> Progress:
        self.bars.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bars.__exit__(None, None, None)

    def on_trial(self, _event: str, record: TrialRecord) -> None:
        task = self.tasks.get(record.stage)
        if task is None:
            return
        tally = self.tally[record.stage]
        tally[record.status] = tally.get(record.status, 0) + 1
        text = " ".join(f"{k} {v}" for k, v in sorted(tally.items()))
        self.bars.update(task, advance=1 if record.status != "error" else 0, tally=text)


def summary(outcome: RunOutcome) -> None:
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
                          f"{rate['passes']}/{rate['n']}", f"{m['usd']:.4f}",
                          f"{m['inputTokens'] + m['outputTokens']:,}", str(m["repeatedToolCalls"]))
    console.print(table)
    for finding in report["findings"]:
        console.print(f"[bold]finding[/] {plain(finding['rule'])}: {plain(finding['statement'])}", soft_wrap=True)
        console.print(f"  does not show: {finding['doesNotShow']}", markup=False, soft_wrap=True)
    spent = report["budget"]["spent"]
    n_cached = spent.get("cachedResponses")
    cached = f" ({n_cached} responses from the cache, not counted)" if n_cached else ""
    console.print(f"spent ${spent['usd']:.4f}, {spent['llmCalls']} model calls{cached}, "
                  f"{spent['inputTokens'] + spent['outputTokens']:,} tokens, {spent['wallSeconds']:.1f} s",
                  markup=False)
    where(outcome.run_dir, "report", outcome.render_error)


def where(directory: Path, name: str, render_error: str | None) -> None:
    """Where the written report is (``name``.json, ``name``.html), and a rendering failure if any."""
    if render_error:
        console.print(f"{name}.html / {name}.md not rendered ({render_error}); try `harness report {directory}`",
                      markup=False, soft_wrap=True)
    console.print(f"{name}: {directory / (name + '.json')}", markup=False, soft_wrap=True)
    html = directory / f"{name}.html"
    if html.exists():
        console.print(f"open in a browser: {html.resolve().as_uri()}", markup=False, soft_wrap=True)


def guarded(work: Callable[[], T], out_dir: Path) -> T | int:
    """``work()``, or the exit code of why it did not finish (O-24): a refused resume or an unknown
    price is the caller's (2), a second Ctrl-C stops (3), anything else is a harness defect (1)."""
    try:
        return work()
    except (ResumeRefused, PriceUnknown) as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_INVALID
    except KeyboardInterrupt:
        err_console.print(f"interrupted twice: aborted; continue with --resume {out_dir}", markup=False)
        return EXIT_STOPPED
    except Exception:  # a host defect: say so, with the traceback, and exit 1 (O-24)
        err_console.print("internal error (a harness defect, please report it):", markup=False)
        err_console.print(traceback.format_exc(), markup=False, highlight=False)
        return EXIT_DEFECT


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


def dry_run(request: RunRequest, prices: PriceTable) -> None:
    """O-25: what would run and a cost range; no model is called."""
    plan, s = request.plan, request.settings
    console.print(summary_table(plan))
    turns = sum(len(st.turns) * st.repeats * len(plan.participants(st)) for st in plan.stages
                if s.stages is None or st.id in s.stages)
    steps = plan.budget.maxStepsPerRun or 12
    out_cap = plan.budget.maxOutputTokensPerCall or 1024
    first = _first_request_tokens(request)
    low_calls, high_calls = turns, turns * steps
    low_in, high_in = low_calls * first, sum(first + i * (out_cap + 200) for i in range(steps)) * turns
    from harness.models import Usage

    def usd(tokens_in: int, tokens_out: int) -> str:
        p = prices.get(s.agent_model)
        return "unknown" if p is None else f"${p.cost(Usage(input_tokens=tokens_in, output_tokens=tokens_out)):.4f}"

    console.print(f"model {s.agent_model} (maintainer {s.maintainer_model}); at most {planned_trials(plan)} "
                  f"trial(s), {turns} turn(s)", markup=False, soft_wrap=True)
    console.print(f"estimate: {low_calls}–{high_calls} model calls, {low_in:,}–{high_in:,} input tokens, "
                  f"cost {usd(low_in, low_calls * 50)} – {usd(high_in, high_calls * out_cap)} "
                  f"(budget maxUsd {request.max_usd if request.max_usd is not None else plan.budget.maxUsd})",
                  markup=False, soft_wrap=True)
    console.print("dry run: no model was called", markup=False)
