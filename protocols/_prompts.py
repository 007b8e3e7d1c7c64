"""Protocol prompts as Jinja2 templates in ``protocols/prompts/`` (P-62, P-70, P-82)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import jinja2

if TYPE_CHECKING:
    from ._protocol import Protocol


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("protocols", "prompts"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render_protocol_prompt(protocol: Protocol) -> str:
    template = _env().get_template(protocol.prompt_template)
    return template.render(options=protocol.resolved_options).strip()


def render_system_prompt(agent_prompt: str, protocol_prompt: str) -> str:
    """Render the agent's prompt with ``context_protocol`` bound to the protocol prompt.

    The agent prompt is itself a Jinja2 template, so ``{{ context_protocol }}`` (any spacing)
    works; other undefined variables are an error naming the variable.
    """
    try:
        template = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False).from_string(
            agent_prompt
        )
        return template.render(context_protocol=protocol_prompt)
    except jinja2.TemplateError as exc:
        from ._errors import InvalidInput

        raise InvalidInput(f"agent.systemPrompt is not a valid template: {exc}") from None
