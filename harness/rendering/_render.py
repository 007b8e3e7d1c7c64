"""Jinja2 rendering of report.html (autoescaped, self-contained) and report.md (O-20, O-21)."""

from __future__ import annotations

import base64
from typing import Any

from jinja2 import ChainableUndefined, Environment, PackageLoader, select_autoescape

from harness.analysis import format_p

from ._transcripts import anchor


def _md(text: Any) -> str:
    """Table- and list-safe Markdown text: one line, pipes escaped, no raw HTML."""
    one_line = " ".join(str(text).split())
    return one_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


_ENV = Environment(loader=PackageLoader("harness.rendering", "templates"),
                   autoescape=select_autoescape(["html", "html.j2"], default_for_string=True),
                   undefined=ChainableUndefined, keep_trailing_newline=True)
_ENV.globals["anchor"] = anchor
_ENV.filters["pvalue"] = format_p
_MD_ENV = Environment(loader=PackageLoader("harness.rendering", "templates"), autoescape=False,
                      undefined=ChainableUndefined, keep_trailing_newline=True, trim_blocks=False)
_MD_ENV.filters["md"] = _md


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_html(context: dict[str, Any], plots: dict[str, bytes]) -> str:
    return _ENV.get_template("report.html.j2").render(
        **context, plots={name: data_uri(png) for name, png in plots.items()})


def render_markdown(context: dict[str, Any], plots: dict[str, bytes]) -> str:
    return _MD_ENV.get_template("report.md.j2").render(**context, plot_files=[f"{n}.png" for n in plots])


def render_named(template: str, context: dict[str, Any]) -> str:
    """Render ``<name>.html.j2`` (autoescaped) or ``<name>.md.j2`` (Markdown-safe ``md`` filter)."""
    env = _ENV if template.endswith(".html.j2") else _MD_ENV
    return env.get_template(template).render(**context)
