"""The docs site's build hook (mkdocs.yml ``hooks:``): adds the command-line reference, ``reference/cli.md``,
generated from the typer app at every build (``harness.cli._reference``), so it never drifts from
``harness --help``. Needs the harness installed in the environment that runs mkdocs (``pip install -e '.[docs]'``).
"""

from __future__ import annotations

from typing import Any

CLI_REFERENCE = "reference/cli.md"


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    from harness.cli import app
    from harness.cli._reference import cli_reference

    files.append(File.generated(config, CLI_REFERENCE, content=cli_reference(app)))
    return files
