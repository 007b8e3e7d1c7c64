"""The typer application and the helpers every command shares."""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from protocols import InvalidInput, JsonRejected, OptionsError, ProjectionError, loads_strict

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
