"""The ``harness`` command line (typer). One module per command; this file only assembles them.

Exit codes (O-24): 0 ran to its end, 2 invalid input or usage, 3 stopped early, 1 internal defect.
"""

from __future__ import annotations

from ._app import app
from . import _protocols  # noqa: F401  (registers commands)
from . import _serve  # noqa: F401
from . import _apply  # noqa: F401
from . import _render  # noqa: F401
from . import _converse  # noqa: F401
from . import _validate, _schema, _compare  # noqa: F401
from . import _run  # noqa: F401
from . import _report  # noqa: F401

__all__ = ["app", "main"]


def main() -> None:
    app()
