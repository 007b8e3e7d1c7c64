"""Protocol prompts as Jinja2 templates in ``protocols/prompts/`` (P-62, P-70, P-82).

A template sees ``options`` (the resolved options) and ``compression_tool``: the name of the
agent-called compression tool when the agent is bound to the host's context maintainer, else
``None``. Whatever a prompt says about tools and arguments is checked against the tool schemas
(tests/protocols/test_prompt_claims.py).
"""

from __future__ import annotations

from functools import lru_cache

import jinja2

from ._errors import InvalidInput
from ._version import ProtocolVersion
from .tools import COMPRESS_TOOL

PLACEHOLDER = "{{context_protocol}}"


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("protocols", "prompts"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render_protocol_prompt(protocol: ProtocolVersion, *, maintainer_bound: bool = False) -> str:
    """The protocol's prompt; rendered once per protocol (its resolved options) and binding: a template
    reads nothing else, and every step's projection asks for it again (Q-2)."""
    return _rendered(protocol, maintainer_bound)


@lru_cache(maxsize=64)
def _rendered(protocol: ProtocolVersion, maintainer_bound: bool) -> str:
    template = _env().get_template(protocol.prompt_template)
    offered = maintainer_bound and protocol.has_windows  # prefix@2 offers no context tool (P-90)
    return template.render(options=protocol.resolved_options,
                           compression_tool=COMPRESS_TOOL if offered else None).strip()


@lru_cache(maxsize=64)
def render_system_prompt(agent_prompt: str, protocol_prompt: str) -> str:
    """Render the agent's prompt with ``context_protocol`` bound to the protocol prompt.

    The agent prompt is itself a Jinja2 template, so ``{{ context_protocol }}`` (any spacing)
    works; other undefined variables are an error naming the variable. A prompt without the
    placeholder is refused (P-62). Cached: every step of a run projects the same two strings, and
    compiling the template cost more than the rest of the projection (Q-2).
    """
    if PLACEHOLDER not in agent_prompt.replace(" ", ""):
        raise InvalidInput(f"agent.systemPrompt must contain {PLACEHOLDER} (P-62)")
    try:
        template = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False).from_string(
            agent_prompt
        )
        return template.render(context_protocol=protocol_prompt)
    except jinja2.TemplateError as exc:
        raise InvalidInput(f"agent.systemPrompt is not a valid template: {exc}") from None
