"""``harness run``'s progress: Rich bars per stage on a terminal; plain lines anywhere else.

Without a terminal (``nohup``, CI, a pipe) the bars are off, so the run prints plain progress lines
instead: one as the run really starts (after the directory's lock and checks: a refused run prints
none), one as each group enters or leaves a stage, and one at least every
``PROGRESS_EVERY_S`` seconds in between (trials done / planned, model calls, tokens, errors), so a
long run never looks dead. A background thread covers the quiet stretches: it sleeps exactly until
the next line is due (the last line's time + the interval; any line, a stage's too, restarts the
interval), so no gap is longer than the interval. Every hook also checks the clock, so with the
interval shrunk to 0 (tests) a line follows every event and the thread is not needed.

Trials are counted by their latest attempt, as the report counts them: done (passed or failed),
skipped (fail-fast or a stop, with the reason's head at the end) and, at the end, not run (their
group never reached the stage); error trials are counted apart. The runner reports model calls as
they settle, not as they start, so while trials remain and no call has settled for WAITING_NOTE_S
seconds or more (a local model reading a long prompt takes a minute on two cores), a periodic line
(on a terminal: each bar's note, refreshed every second) says that a call is in flight and how long it
has been since one settled.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from harness.models.workers import stays_in_process
from harness.results import TrialRecord
from harness.runner import RunRequest

PROGRESS_EVERY_S = 30.0
"""Longest gap between two plain progress lines (seconds)."""

WAITING_NOTE_S = 5.0
"""A periodic line after this long without a settled model call says a call is in flight."""

console = Console(emoji=False)  # user and model text is printed as written (":x:" is not an emoji)


class Progress:
    """One bar per stage on a terminal (its total: the trials if every group entered the stage);
    plain lines otherwise (``plain`` overrides the terminal check)."""

    def __init__(self, request: RunRequest, plain: bool | None = None) -> None:
        self.plan = request.plan
        self.plain = not console.is_terminal if plain is None else plain
        self.bars = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[tally]}"), TimeElapsedColumn(),
                                 TextColumn("{task.fields[note]}", style="dim"), console=console,
                                 transient=False, disable=self.plain or not console.is_terminal)
        self.tasks: dict[str, Any] = {}
        self.latest: dict[tuple[str, str, int], TrialRecord] = {}  # (group, stage, repeat) → its latest attempt
        self.model = request.settings.agent_model
        self.concurrency = request.settings.concurrency
        self.workers = 0 if stays_in_process(self.model) else request.settings.model_workers
        selected, groups = request.settings.stages, request.settings.groups
        for stage in self.plan.stages:
            if selected is not None and stage.id not in selected:
                continue
            n = sum(stage.repeats for g in self.plan.participants(stage) if groups is None or g.id in groups)
            self.tasks[stage.id] = self.bars.add_task(stage.id, total=n, tally="", note="")
        self.planned = sum(int(self.bars.tasks[t].total or 0) for t in self.tasks.values())
        self.error_trials = self.calls = self.failed_calls = self.tokens = self.cached = 0
        self.started_stages: set[str] = set()
        self._clock = time.monotonic
        self._started = self._last = self._last_call = self._clock()
        self._last_call_failed = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started = False
        self.stop_reason: str | None = None
        """Why the run stopped early (the caller sets it from ``RunOutcome.stop_reason``): the last line says so."""

    # context ----------------------------------------------------------------------------------
    def __enter__(self) -> Progress:
        return self

    def start(self) -> None:
        """The run really started (``execute``'s ``on_start``: the lock is held, the directory checked
        and written): the bars, or the first plain line and the ticker, begin now. A run refused
        before (a locked or read-only directory, an unusable --cache) prints no progress at all."""
        if self.started:
            return
        self.started = True
        self._started = self._last = self._last_call = self._clock()
        self.bars.__enter__()
        if self.plain:
            stages = ", ".join(f"{s} {int(self.bars.tasks[t].total or 0)}" for s, t in self.tasks.items())
            workers = f", {self.workers} model worker{'s' * (self.workers > 1)}" if self.workers else ""
            self._line(f"run started: at most {self.planned} trials ({stages}), model {self.model}, "
                       f"concurrency {self.concurrency}{workers}; a progress line at least every "
                       f"{PROGRESS_EVERY_S:g} s")
            if PROGRESS_EVERY_S > 0:
                self._thread = threading.Thread(target=self._tick, name="progress", daemon=True)
                self._thread.start()
        elif not self.bars.disable:  # the bars say a call is in flight too (a local model reading a prompt)
            self._thread = threading.Thread(target=self._bar_tick, name="progress", daemon=True)
            self._thread.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if not self.started:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.bars.__exit__(None, None, None)
        if not self.plain:
            return
        if exc_type is None and self.stop_reason is None:
            self._line(f"run finished: {self.totals(final=True)}")
        else:  # a stopped run did not do what was planned: say so, and how much of it was decided
            why = f" ({self.stop_reason})" if self.stop_reason else (" (aborted)" if exc_type is not None else "")
            decided = sum(r.finished for r in self.latest.values())
            self._line(f"run stopped{why}: {decided} of the {self.planned} planned trials decided (passed or "
                       f"failed); {self.totals(trials=False)}")

    # counts (each trial, i.e. group × stage × repeat, once: at its latest attempt) ------------
    @property
    def done(self) -> int:
        """Trials whose latest attempt passed or failed (a skip is not done; an error waits for its retry)."""
        return sum(r.finished for r in self.latest.values())

    def _skipped(self) -> Counter[str]:
        """Skipped trials (latest attempt) by the head of their reason: ``fail_fast``, a stop reason."""
        return Counter((r.reason or "no reason recorded").split(":", 1)[0]
                       for r in self.latest.values() if r.status == "skipped")

    def _tally(self, stage: str, group: str | None = None) -> dict[str, int]:
        out: dict[str, int] = {}
        for (g, s, _), record in self.latest.items():
            if s == stage and (group is None or g == group):
                out[record.status] = out.get(record.status, 0) + 1
        return out

    # hooks (called on the run's event loop) ---------------------------------------------------
    def on_trial(self, _event: str, record: TrialRecord) -> None:
        task = self.tasks.get(record.stage)
        if task is None:
            return
        key = (record.group, record.stage, record.repeat)
        earlier = self.latest.get(key)
        if earlier is None or record.attempt >= earlier.attempt:  # a resume replays superseded attempts first
            self.latest[key] = record
        self.error_trials += record.status == "error"
        tally = self._tally(record.stage)
        text = " ".join(f"{k} {v}" for k, v in sorted(tally.items()))
        self.bars.update(task, completed=sum(v for k, v in tally.items() if k != "error"), tally=text)
        self._maybe_line()

    def on_stage(self, event: str, group: str, stage: str, status: str | None) -> None:
        if event == "end":
            self._unneeded(group, stage)
        if not self.plain:
            return
        if event == "start" and stage not in self.started_stages:
            self.started_stages.add(stage)
            self._line(f"stage {stage}: started (first group: {group})")
        elif event == "end":
            tally = self._tally(stage, group)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(tally.items())) or "no trials"
            self._line(f"stage {stage}: group {group} {status} ({counts}); {self.totals()}")

    def _unneeded(self, group: str, stage: str) -> None:
        """A sequential stage that stopped at a look planned repeats it did not need: they leave the totals."""
        task, spec = self.tasks.get(stage), self.plan.stage(stage)
        if task is None or spec.sequential is None:
            return
        unneeded = spec.repeats - sum(g == group and s == stage for g, s, _ in self.latest)
        if unneeded > 0:
            self.planned -= unneeded
            self.bars.update(task, total=int(self.bars.tasks[task].total or 0) - unneeded)

    def on_call(self, call: dict[str, Any]) -> None:
        self._last_call, self._last_call_failed = self._clock(), not call.get("ok", True)
        if call.get("cached"):
            self.cached += 1
        else:
            self.calls += 1
            self.failed_calls += not call.get("ok", True)
            self.tokens += int(call.get("inputTokens", 0)) + int(call.get("outputTokens", 0))
        self._maybe_line()

    def hooks(self) -> dict[str, Any]:
        """The keyword hooks of ``harness.runner.execute``."""
        return {"on_trial": self.on_trial, "on_stage": self.on_stage, "on_call": self.on_call,
                "on_start": self.start}

    # lines ------------------------------------------------------------------------------------
    def totals(self, trials: bool = True, final: bool = False) -> str:
        """Trials done / planned, skipped (with reasons when ``final``) and, when ``final``, not run;
        then calls, tokens and errors."""
        cached = f" (+{self.cached} from the cache)" if self.cached else ""
        counts = ""
        if trials:
            skipped = self._skipped()
            counts = f"{self.done}/{self.planned} trials done, "
            if skipped:
                why = f" ({', '.join(f'{k} {v}' for k, v in skipped.most_common())})" if final else ""
                counts += f"{sum(skipped.values())} skipped{why}, "
            not_run = self.planned - len(self.latest)
            if final and not_run > 0:
                counts += f"{not_run} not run (their group did not reach the stage), "
        return (counts + f"{self.calls} model calls{cached}, {self.tokens:,} tokens, "
                f"errors: {self.failed_calls} calls, {self.error_trials} trials")

    def waiting(self) -> str:
        """"; a model call in flight: …" while trials remain and no call has settled for WAITING_NOTE_S."""
        quiet = self._clock() - self._last_call
        if quiet < WAITING_NOTE_S or len(self.latest) >= self.planned:
            return ""
        since = "the last one (failed) settled" if self._last_call_failed else (
            "the last one settled" if self.calls or self.cached else "the run started")
        return f"; a model call in flight: {quiet:.0f} s since {since}"

    def _maybe_line(self) -> None:
        if self.plain and self._due_in() <= 0:
            self._line(f"progress: {self.totals()}{self.waiting()}")

    def _due_in(self) -> float:
        """Seconds until the next line is due: the last line's time + the interval."""
        return max(0.0, self._last + PROGRESS_EVERY_S - self._clock())

    def _tick(self) -> None:
        """Wake exactly when the next line is due; a line printed meanwhile moves the deadline."""
        while not self._stop.wait(self._due_in()):
            self._maybe_line()

    def bar_note(self) -> str:
        """Set every bar's note to ``waiting()`` (without its "; "), and return it."""
        note = self.waiting().removeprefix("; ")
        for task in self.tasks.values():
            self.bars.update(task, note=note)
        return note

    def _bar_tick(self) -> None:
        while not self._stop.wait(1.0):
            self.bar_note()

    def _line(self, text: str) -> None:
        with self._lock:
            self._last = self._clock()
            elapsed = self._last - self._started
            console.print(f"[{elapsed:6.0f} s] {text}", markup=False, highlight=False, soft_wrap=True)
            console.file.flush()
