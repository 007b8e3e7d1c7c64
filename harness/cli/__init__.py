"""The ``harness`` command line (typer). One module per command; this file only assembles them.

Exit codes (O-24): 0 ran to its end, 2 invalid input or usage, 3 stopped early, 4 an expectation
of ``harness run --expect`` unmet, 1 internal defect.
"""

from __future__ import annotations

# importing a command module registers its command on ``app``
from . import (  # noqa: F401
    _apply,
    _compare,
    _converse,
    _export,
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

__all__ = ["app", "main"]


def main() -> None:
    app()
