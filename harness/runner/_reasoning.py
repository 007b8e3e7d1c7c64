"""The agent's reasoning settings as every agent call sends them (E-4, X-20).

The plan's ``models.reasoningEffort`` (or ``--reasoning-effort``) and ``models.params`` become each
agent call's provider parameters (``RunLimits.extra`` → ``ModelRequest.extra``); the maintainer's calls
take none. Where thinking takes a token budget (Anthropic ``budget_tokens``, Gemini 2.5 ``thinkingBudget``),
the output cap sent is the plan's ``maxOutputTokensPerCall`` plus that budget, read from the body litellm
builds (``harness.wire.output_cap``): Anthropic refuses ``max_tokens`` at or below the budget, and the
budget reservation (``_budget``) counts what is sent. A Claude model with thinking on takes temperature 1
only: the plan's other temperature is not sent (the adapter leaves it out), and report.json's caveats say
so (``results._caveats.thinking_caveats``).

Whatever else a model does not take is found the same way, before any call, by litellm's own validation
(``harness.wire.unsent_params``): a sampling value it refuses or drops (gpt-5 and the o-series take
temperature 1 only while reasoning; a Kimi reasoning model's temperature) is not sent, recorded
(report.json ``model.notSent``) and named by a caveat, as Claude's is; a provider parameter it refuses or
drops (``reasoning_effort`` on a model without reasoning) is refused before the run (``ParamsRefused``,
exit 2), naming the parameter, the model and the fix. The maintainer's fixed temperature 0 is checked on
its model the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.models import ModelRequest, thinking_refuses
from harness.plan import ModelsSpec
from harness.wire import UnsentParam, WireBuildError, output_cap, thinking_budget, unsent_params

MAINTAINER_TEMPERATURE = 0.0
"""The maintainer samples at temperature 0 (a fold or checkpoint summary is no experiment), where its model takes it."""
_PROBE_TOOL = {"type": "function", "function": {"name": "probe", "description": "a tool, as every agent call has",
                                                "parameters": {"type": "object", "properties": {}}}}
_PLAN_NAMES = {"temperature": "models.sampling.temperature", "top_p": "models.sampling.topP",
               "seed": "models.sampling.seed", "reasoning_effort": "models.reasoningEffort (or --reasoning-effort)"}


@dataclass(frozen=True)
class AgentCalls:
    """What every agent call of a run sends besides its messages: provider parameters and output cap."""

    extra: dict[str, Any]
    max_output_tokens: int | None
    thinking_budget: int | None = None
    """The thinking budget inside ``max_output_tokens`` (None: no budget, or no cap)."""
    unsent: tuple[UnsentParam, ...] = ()
    """The plan's parameters the agent's model does not take (litellm refuses or drops them), found offline."""
    maintainer_unsent: tuple[UnsentParam, ...] = ()
    """The maintainer's temperature 0 when its model does not take it."""

    def sends(self, name: str) -> bool:
        """Whether the agent's calls send the plan's sampling parameter ``name`` (temperature, top_p, seed)."""
        return not any(u.name == name for u in self.unsent)

    @property
    def refused(self) -> list[UnsentParam]:
        """The provider parameters a run cannot send as the plan says: refused or left out by litellm (a
        ``reasoning_effort`` of ``none`` left out is not: no reasoning either way)."""
        return [u for u in self.unsent if not u.sampling and (u.refused or u.value != "none")]


class ParamsRefused(ValueError):
    """Parameters the plan sets that a model does not take, found before any call (exit 2); the message names
    each parameter, the model, litellm's reason and the fix."""

    @classmethod
    def of(cls, model: str, refused: list[UnsentParam]) -> ParamsRefused:
        return cls("; ".join(refused_message(model, u) for u in refused))


def refused_message(model: str, param: UnsentParam) -> str:
    """What is refused, by whom, and the fix (one sentence each)."""
    where = _PLAN_NAMES.get(param.name, f"models.params.{param.name}")
    how = "refuses it" if param.refused else "leaves it out of every call"
    fix = ("remove it, or run a model that reasons (litellm's catalogue marks it supports_reasoning)"
           if param.name == "reasoning_effort" else "remove it, or run a model that takes it")
    return f"{param.name} {param.value!r} ({where}) cannot be sent to {model}: litellm {how} ({param.why}); fix: {fix}"


_CACHE: dict[tuple[str, str, int | None, str | None, str | None], AgentCalls] = {}


def agent_calls(model: str, models: ModelsSpec, cap: int | None, effort: str | None = None,
                maintainer: str | None = None) -> AgentCalls:
    """The agent's parameters for ``model``: the plan's (``effort`` given wins over ``reasoningEffort``),
    the output cap with any thinking budget added, and what of the plan's parameters the model does not take
    (``unsent``, and the ``maintainer`` model's temperature 0 when given), each found by litellm's own
    offline validation. A model litellm cannot build a body for (a scripted model) keeps the plan's cap:
    its call says what is wrong. Worked out once per arguments (offline body builds are not free)."""
    key = (model, models.model_dump_json(), cap, effort, maintainer)
    if key not in _CACHE:
        _CACHE[key] = _agent_calls(model, models, cap, effort, maintainer)
    return _CACHE[key]


def _agent_calls(model: str, models: ModelsSpec, cap: int | None, effort: str | None,
                 maintainer: str | None) -> AgentCalls:
    extra = models.agent_params()
    if effort is not None:
        extra["reasoning_effort"] = effort
    if model.startswith("scripted/"):
        return AgentCalls(extra, cap)
    sampling = models.sampling
    probe = ModelRequest(messages=[{"role": "user", "content": "?"}], tools=[_PROBE_TOOL], max_output_tokens=cap,
                         temperature=sampling.temperature, top_p=sampling.topP, seed=sampling.seed, extra=extra)
    claude = thinking_refuses(model, extra, {"temperature": sampling.temperature, "top_p": sampling.topP})
    unsent = tuple(u for u in unsent_params(model, probe) if u.name not in claude)  # Claude's: thinking_caveats
    held = [u for u in unsent if not u.sampling]
    usable = {k: v for k, v in extra.items() if k not in {u.name for u in held}}
    mine = () if maintainer is None or maintainer.startswith("scripted/") else tuple(
        u for u in unsent_params(maintainer, ModelRequest(messages=[{"role": "user", "content": "?"}],
                                                          max_output_tokens=cap, temperature=MAINTAINER_TEMPERATURE))
        if u.name == "temperature")
    if not usable or cap is None:
        return AgentCalls(extra, cap, unsent=unsent, maintainer_unsent=mine)
    try:
        budget = thinking_budget(model, usable)
        return AgentCalls(extra, output_cap(model, cap, usable), budget, unsent, mine)
    except (WireBuildError, ValueError):
        return AgentCalls(extra, cap, unsent=unsent, maintainer_unsent=mine)
