"""The site's command-line reference (O-24), generated from the typer app at build time by the site's
build hook (scripts/mkdocs_hooks.py), lists what
``harness --help`` and each ``harness COMMAND --help`` list: every command, every argument and option
(read from the printed help panels), every name of each option (read from the click tree), and each
command's help text as written."""

from __future__ import annotations

import html
import importlib.util
import re
from functools import cache
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from typer.testing import CliRunner

from harness.cli import app

ROOT = Path(__file__).parents[2]
_SPEC = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts" / "mkdocs_hooks.py")
assert _SPEC is not None and _SPEC.loader is not None
HOOKS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(HOOKS)
cli_reference, commands = HOOKS.cli_reference, HOOKS.commands
SECTION = re.compile(r"^## `harness(?: ([\w-]+))?`", re.MULTILINE)
ROW = re.compile(r"^\| `([^`]+)` \|", re.MULTILINE)


@cache
def reference() -> dict[str, str]:
    """The generated page by section: "" for the ``harness`` group, else the command's name."""
    text = cli_reference(app)
    marks = list(SECTION.finditer(text))
    return {m.group(1) or "": text[m.start():(marks[i + 1].start() if i + 1 < len(marks) else len(text))]
            for i, m in enumerate(marks)}


def printed_help(*args: str) -> dict[str, set[str]]:
    """The first word of every row of each panel ``--help`` prints (Commands, Arguments, Options), by title."""
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    panels: dict[str, set[str]] = {}
    title = None
    for line in result.output.splitlines():
        if opened := re.match(r"╭─ (.+?) ─", line):
            title = opened.group(1)
            panels[title] = set()
        elif line.startswith("╰"):
            title = None
        elif title and (row := re.match(r"│ (?:\*\s+|\s{0,3})(\S+)", line)):
            panels[title].add(row.group(1))  # a row's first column; a wrapped line is indented further
    return panels


def listed(section: str) -> set[str]:
    """The first word of each argument, option and command the reference's section lists."""
    return {name.split()[0] for name in ROW.findall(section)} | set(re.findall(r"^\| \[`([\w-]+)`\]", section, re.M))


def test_the_reference_has_a_section_for_every_command_harness_help_lists() -> None:
    panels = printed_help()
    assert set(reference()) == {""} | panels["Commands"]
    assert listed(reference()[""]) == panels["Commands"] | panels["Options"]


@pytest.mark.parametrize("name", sorted(printed_help()["Commands"]))
def test_each_command_lists_the_arguments_and_options_its_help_prints(name: str) -> None:
    panels = printed_help(name)
    assert panels, f"harness {name} --help printed no panel"
    assert listed(reference()[name]) == set().union(*panels.values())


def _plain(markdown: str) -> str:
    return " ".join(html.unescape(re.sub(r"\\([\\*_\[\]#>|])", r"\1", markdown)).split())


def test_every_name_of_every_option_and_each_help_text_as_written() -> None:
    """From the click tree: every option's names (``--x`` and its secondary ``--no-x``) and every argument are
    in the command's section, and so is each paragraph of the command's and each parameter's help."""
    _, _, found = commands(app)
    for name, command, ctx in found:
        section = reference()[name]
        text = _plain(section)
        for param in [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]:
            record = param.get_help_record(ctx)
            assert record is not None, (name, param.name)
            argument = param.param_type_name == "argument"
            names = [record[0].split()[0]] if argument else [*param.opts, *param.secondary_opts]
            assert all(f"`{n}" in section or f"/{n}" in section for n in names), (name, names)
            assert " ".join(record[1].split()) in text, (name, param.name)
        for paragraph in (command.help or "").split("\n\n"):
            assert " ".join(paragraph.split()) in text, (name, paragraph[:60])


def test_markup_in_help_text_is_shown_as_written() -> None:
    """``D/<model>/`` in ``harness run --help`` must not become an HTML tag, nor ``plots/*.png`` emphasis."""
    assert "D/&lt;model\\>/" in reference()["run"]
    assert "plots/\\*.png" in reference()[""]


def test_the_site_builds_the_page_with_the_hook() -> None:
    """mkdocs.yml runs the hook that writes the page, and its nav links the page the hook writes."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["hooks"] == ["scripts/mkdocs_hooks.py"]
    assert HOOKS.CLI_REFERENCE == "reference/cli.md"
    assert "cli_reference(app)" in (ROOT / "scripts" / "mkdocs_hooks.py").read_text(encoding="utf-8")
    pages = [page for part in config["nav"] for page in _leaves(part)]
    assert "reference/cli.md" in pages
    assert not (ROOT / "docs" / "reference" / "cli.md").exists()  # generated, never a copy in the repository


def _leaves(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [leaf for value in entry.values() for leaf in _leaves(value)]
    if isinstance(entry, list):
        return [leaf for item in entry for leaf in _leaves(item)]
    return []
