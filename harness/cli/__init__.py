"""The ``harness`` command line (typer). One module per command; this file only assembles them.

Exit codes (O-24): 0 ran to its end, 2 invalid input or usage, 3 stopped early, 4 an expectation
of ``harness run --expect`` unmet, 5 ``--strict`` and the plan's design review found a problem (a
valid plan that cannot show what it compares: ``harness validate --strict``, and ``harness run
--strict``, which checks it after the exit-2 checks and before any model call, so nothing ran), 1
internal defect, 130 interrupted (Ctrl-C) before anything ran. ``harness run``'s order of precedence
is in ``_run_gate``.

The command modules are imported on first use of ``app`` (``from harness.cli import app``) or by
``main``, not when this package is: the console script imports ``main`` from here, and a Ctrl-C
while the commands load (litellm, rich, typer: about a second) must end with one line, not a
traceback.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]


def _load() -> typer.Typer:
    # importing a command module registers its command on ``app``
    from . import (  # noqa: F401
        _apply,
        _compare,
        _converse,
        _export,
        _power,
        _protocols,
        _render,
        _report,
        _rescore,
        _run,
        _schema,
        _serve,
        _validate,
    )
    from ._app import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return _load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    try:
        app = _load()
    except KeyboardInterrupt:
        what = "the run started; nothing was run" if sys.argv[1:2] == ["run"] else "the command started"
        sys.stderr.write(f"interrupted before {what}\n")
        raise SystemExit(130) from None
    app()
