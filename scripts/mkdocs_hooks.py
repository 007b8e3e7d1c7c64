"""The docs site's build hook (mkdocs.yml ``hooks:``) and the page it adds: the command-line reference,
``reference/cli.md``, generated from the typer app's click tree at every build (O-24: every command,
argument and option ``harness --help`` and each command's ``--help`` show, with the same texts), never
hand-copied; tests/docs/test_cli_reference.py compares it with the help the app prints.

Needs the harness installed in the environment that runs mkdocs (``pip install -e '.[docs]'``). Reads the app
through typer only (its own click: ``typer.main.get_command``, ``typer.Context``).
"""

from __future__ import annotations

import re
from typing import Any

import typer

CLI_REFERENCE = "reference/cli.md"


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    from harness.cli import app

    files.append(File.generated(config, CLI_REFERENCE, content=cli_reference(app)))
    return files



_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
_MARKDOWN = re.compile(r"([\\*_\[\]#>|])")


def _escape(text: str) -> str:
    """Help text as Markdown that shows it as written: code spans kept, every other character that Markdown
    (or HTML: ``D/<model>/``) would read as markup escaped."""
    parts = _CODE_SPAN.split(text)
    for i in range(0, len(parts), 2):
        plain = parts[i].replace("&", "&amp;").replace("<", "&lt;")
        parts[i] = _MARKDOWN.sub(r"\\\1", plain)
    return "".join(parts)


def _cell(text: str) -> str:
    return _escape(" ".join(text.split()))


def _paragraphs(text: str) -> list[str]:
    out = []
    for paragraph in text.strip().split("\n\n"):
        lines = paragraph.splitlines()
        if any(line.lstrip().startswith("- ") for line in lines):  # a list, as ``reflow_help`` keeps it
            out.append("\n".join(_escape(line.strip()) if not line.lstrip().startswith("- ")
                                 else "- " + _escape(line.lstrip()[2:]) for line in lines))
        else:
            out.append(_escape(" ".join(line.strip() for line in lines)))
    return out


def shown_params(command: Any, ctx: typer.Context) -> list[Any]:
    """The parameters ``--help`` lists: every one not hidden, ``--help`` itself included."""
    return [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]


def is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"


def commands(app: typer.Typer) -> tuple[Any, typer.Context, list[tuple[str, Any, typer.Context]]]:
    """The root group, its context and each command ``harness --help`` lists (name, command, context), in its order."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root, info_name="harness")
    out = []
    for name in root.list_commands(ctx):  # type: ignore[attr-defined]
        command = root.get_command(ctx, name)  # type: ignore[attr-defined]
        if command is None or command.hidden:
            continue
        out.append((name, command, typer.Context(command, info_name=name, parent=ctx)))
    return root, ctx, out


def _params_table(title: str, params: list[Any], ctx: typer.Context) -> list[str]:
    if not params:
        return []
    rows = [f"| {title} | what it does |", "|---|---|"]
    for param in params:
        record = param.get_help_record(ctx)
        name, text = record if record is not None else (param.name, "")
        rows.append(f"| `{' '.join(name.split())}` | {_cell(text)} |")
    return [*rows, ""]


def _section(heading: str, command: Any, ctx: typer.Context, usage: str) -> list[str]:
    params = shown_params(command, ctx)
    lines = [heading, "", "```text", usage, "```", ""]
    for paragraph in _paragraphs(command.help or ""):
        lines += [paragraph, ""]
    lines += _params_table("argument", [p for p in params if is_argument(p)], ctx)
    lines += _params_table("option", [p for p in params if not is_argument(p)], ctx)
    return lines


def cli_reference(app: typer.Typer) -> str:
    """The Markdown page: the ``harness`` group, then one section per command with its usage, its whole help
    text and a table of its arguments and one of its options (each as ``--help`` names it, with its help)."""
    root, ctx, listed = commands(app)
    lines = [
        "# Command-line reference",
        "",
        "Generated from the `harness` command's own definitions when this site is built: each command's",
        "usage, its whole `--help` text and every argument and option it takes. The task pages say which of",
        "them to reach for when.",
        "",
    ]
    lines += _section("## `harness`", root, ctx, "harness [OPTIONS] COMMAND [ARGS]...")
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#harness-{name}) | {_cell(command.get_short_help_str(limit=300))} |"
              for name, command, _ in listed]
    lines.append("")
    for name, command, sub in listed:
        usage = " ".join(["harness", name, *command.collect_usage_pieces(sub)])
        lines += _section(f"## `harness {name}` {{ #harness-{name} }}", command, sub, usage)
    return "\n".join(lines).rstrip("\n") + "\n"
