"""The agent's reasoning settings as every agent call sends them (E-4, X-20).

The plan's ``models.reasoningEffort`` (or ``--reasoning-effort``) and ``models.params`` become each
agent call's provider parameters (``RunLimits.extra`` → ``ModelRequest.extra``); the maintainer's calls
take none. Where thinking takes a token budget (Anthropic ``budget_tokens``, Gemini 2.5 ``thinkingBudget``),
the output cap sent is the plan's ``maxOutputTokensPerCall`` plus that budget, read from the body litellm
builds (``harness.wire.output_cap``): Anthropic refuses ``max_tokens`` at or below the budget, and the
budget reservation (``_budget``) counts what is sent. A Claude model with thinking on takes temperature 1
only: the plan's other temperature is not sent (the adapter leaves it out), and report.json's caveats say
so (``results._caveats.thinking_caveats``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.plan import ModelsSpec
from harness.wire import WireBuildError, output_cap, thinking_budget


@dataclass(frozen=True)
class AgentCalls:
    """What every agent call of a run sends besides its messages: provider parameters and output cap."""

    extra: dict[str, Any]
    max_output_tokens: int | None
    thinking_budget: int | None = None
    """The thinking budget inside ``max_output_tokens`` (None: no budget, or no cap)."""


def agent_calls(model: str, models: ModelsSpec, cap: int | None, effort: str | None = None) -> AgentCalls:
    """The agent's parameters for ``model``: the plan's (``effort`` given wins over ``reasoningEffort``),
    and the output cap with any thinking budget added. A model litellm cannot build a body for (a
    scripted model) keeps the plan's cap: its call says what is wrong."""
    extra = models.agent_params()
    if effort is not None:
        extra["reasoning_effort"] = effort
    if not extra or cap is None or model.startswith("scripted/"):
        return AgentCalls(extra, cap)
    try:
        budget = thinking_budget(model, extra)
        return AgentCalls(extra, output_cap(model, cap, extra), budget)
    except (WireBuildError, ValueError):
        return AgentCalls(extra, cap)
