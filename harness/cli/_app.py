"""The typer application, the helpers every command shares and the option texts several commands show.

Light on purpose (Q-4): typer and rich only. A command module imports what its work needs inside
the command, so ``harness --help`` (which imports every command module to list them) and each quick
command load only typer, rich and their own code (tests/harness/cli/test_cold_start.py)."""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

app = typer.Typer(
    name="harness",
    help=(
        "Placement harness: measure how an agent host's mapping of context into LLM messages "
        "changes what the model does.\n\nStart with `harness run plans/unified-mapping-ab-20261005/"
        "experiment-plan.json` (scripted model, no key needed), or `harness protocols` to see the "
        "protocol catalog."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_OK, EXIT_DEFECT, EXIT_INVALID, EXIT_STOPPED, EXIT_UNMET = 0, 1, 2, 3, 4
EXIT_DESIGN = 5
"""``--strict`` and the plan's design review found a problem (``harness validate``, ``harness run``)."""
EXIT_NO_VERDICT = 6
EXIT_INTERRUPTED = 130
"""Ctrl-C before a run started (nothing ran), or while its report was rendered (every trial is recorded)."""
NOT_STARTED = "interrupted before the run started; nothing was run"
work_started = False
"""Set when a command's work (a run) began: a later Ctrl-C is not "before the run started"."""

err_console = Console(stderr=True, soft_wrap=True, emoji=False)  # ":x:" in user text stays ":x:"
F = TypeVar("F", bound=Callable[..., Any])


def plain(text: object) -> str:
    """Text the user or a model supplied (a path, a --group value, a model name, an answer), made
    safe for a Rich markup string or table cell: ``'/tmp/no[/]such.json'`` prints as written
    instead of raising MarkupError, and ``[red]`` is not swallowed as a style."""
    return escape(str(text))


def fail(message: str, code: int = EXIT_INVALID) -> NoReturn:
    """Print a clear error (no traceback) and exit with ``code``; ``message`` is plain text."""
    err_console.print(f"[bold red]error:[/] {plain(message)}", highlight=False, markup=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the caller's mistakes into exit 2 with the reason, never a traceback."""
    from protocols import InvalidInput, OptionsError, ProjectionError

    try:
        yield
    except (InvalidInput, OptionsError, ProjectionError) as exc:
        fail(str(exc))


def interruptible(function: F) -> F:
    """A command whose Ctrl-C before its work started (loading the plan, checking prices) ends with
    one line and exit 130, not click's "Aborted!" (exit 1). The run itself handles its own Ctrl-C."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global work_started
        work_started = False  # this command's work (an earlier one in this process, in tests, is not)
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt:
            after = "interrupted after the run; its directory holds what it recorded"
            err_console.print(after if work_started else NOT_STARTED, markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None

    return wrapper  # type: ignore[return-value]


def reflow_help(function: F) -> F:
    """Join the wrapped lines of each docstring paragraph, so ``--help`` wraps them to the terminal
    instead of keeping the source's line breaks (typer keeps them). A paragraph of "- " list items
    stays as written."""
    text = inspect.cleandoc(function.__doc__ or "")
    paragraphs = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.splitlines()
        if any(line.lstrip().startswith("- ") for line in lines):
            paragraphs.append(paragraph)
        else:
            paragraphs.append(" ".join(line.strip() for line in lines))
    function.__doc__ = "\n\n".join(paragraphs)
    return function


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def parse_options(pairs: list[str] | None, parse_value: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """``["k=v", ...]`` → ``{k: v}``; values are JSON when they parse as JSON, else strings."""
    from protocols import JsonRejected, loads_strict

    out: dict[str, Any] = {}
    for pair in pairs or []:
        if "=" not in pair:
            fail(f"--option {pair!r}: expected KEY=VALUE")
        key, value = pair.split("=", 1)
        try:
            out[key.strip()] = loads_strict(value)
        except JsonRejected:
            out[key.strip()] = value
    return out


# The option texts of ``harness run`` that other commands share (``converse``: --reasoning-effort; a sweep:
# --model, --cache). What the options do is in ``_run_gate`` and ``_run_sweep``.
DOC_MODEL = ("Agent model (litellm string); default: the plan's. Repeat it to sweep several models into one "
             "directory (one run per model, one shared budget).")
DOC_CACHE = ("Response cache directory (opt-in): a request asked before (same model, messages, tools, sampling, "
             "repeat) is answered from it without calling the model, and marked as cached; new responses are added. "
             "A folder the run cannot write (a file in the way, read-only) is refused before any call (exit 2).")
DOC_EXPECT = ("Expected stage outcome GROUP:STAGE=STATUS (repeatable), e.g. A:simple=passed; STATUS is passed, "
              "failed, inconclusive, skipped or not_reached. Added to the plan's expect list (on the same group and "
              "stage this one wins). An unmet expectation makes the run exit 4. In a sweep every model must meet it.")
DOC_JUNIT = ("Write JUnit XML here: one test case per trial (class group.stage), failures with their failure mode "
             "and failed checks, errors for infrastructure errors, skipped for skipped trials.")
DOC_TEMPERATURE = "Override the plan's models.sampling.temperature (0 to 2); recorded in report.json as an override."
DOC_SEED = "Override the plan's models.sampling.seed; recorded in report.json as an override."
DOC_REASONING = ("The agent's reasoning effort: none, minimal, low, medium or high (overrides the plan's "
                 "models.reasoningEffort; litellm's reasoning_effort: Anthropic thinking, Gemini thinking). Where "
                 "thinking takes a token budget, each agent call's output cap is the plan's maxOutputTokensPerCall "
                 "plus that budget. The maintainer's calls keep none. Recorded in report.json as an override.")


class ReasoningChoice(StrEnum):
    """The values ``--reasoning-effort`` takes (``harness.models.REASONING_EFFORTS``, checked in ``_run_gate``),
    as typer's choice."""

    none = "none"
    minimal = "minimal"
    low = "low"
    medium = "medium"
    high = "high"


DOC_REPEATS = ("Override a stage's repeats: STAGE=N (repeatable), e.g. simple=5; recorded in report.json as an "
               "override. A sequential stage takes only its last look.")
DOC_STRICT = (f"Exit {EXIT_DESIGN} before any model call when the design review of the plan (as it would run, "
              "overrides applied) finds a problem, as `harness validate --strict` does (for CI).")
EXIT_CODES = ("Exit codes: 0 the experiment ran to its end, some trial reached a verdict and every expectation is "
              "met (whatever the verdicts); 2 invalid input or an unusable environment (nothing ran; e.g. a remote "
              "model without a price under a USD cap, or a provider parameter the model does not take, such as "
              "reasoning_effort on a model without reasoning, named with its fix); 3 stopped early (budget, stop "
              "condition, a server's context limit, interrupt; the report "
              "is still written, --resume continues it); 6 ran to its end but no trial reached a verdict (passed or "
              "failed): every group held back by the preflight, or every call refused or errored, and a sentence "
              "says which (the report is still written); 4 ran to its end but an expectation (--expect or the "
              "plan's expect) is unmet, each one listed; 5 --strict and the design review found a problem (nothing "
              "ran; checked after the exit-2 checks, before any model call); 1 an internal defect of the harness; "
              "130 interrupted (Ctrl-C) before the run started (nothing ran), or while the report was rendered "
              "after every trial had finished (the run is completed and report.json written; `harness report "
              "DIR` renders report.html / report.md). A run that both stops early and misses an expectation exits "
              "3: its verdicts are not final yet.")
