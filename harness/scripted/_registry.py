"""The scripted models by name (X-60 … X-62); ``scripted/<name>`` names the same model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.models import UnreadableInput

from ._chaos import ChaosModel
from ._last_user_follower import LastUserFollowerModel
from ._oracle import OracleModel
from ._prefill_continuer import PrefillContinuerModel
from ._repeater import RepeaterModel
from ._stale_intent import StaleIntentModel
from ._types import ScriptedModel, ScriptedReply

_FACTORIES: dict[str, Callable[[], ScriptedModel]] = {
    "oracle": OracleModel,
    "prefill-continuer": PrefillContinuerModel,
    "last-user-follower": LastUserFollowerModel,
    "stale-intent": StaleIntentModel,
    "repeater": RepeaterModel,
    "chaos": ChaosModel,
}

SCRIPTED_MODELS: tuple[str, ...] = tuple(_FACTORIES)
PREFIX = "scripted/"


def get_scripted(name: str) -> ScriptedModel:
    """A fresh scripted model; ``KeyError`` names the known models when ``name`` is not one."""
    key = name[len(PREFIX):] if name.startswith(PREFIX) else name
    factory = _FACTORIES.get(key)
    if factory is None:
        raise KeyError(f"unknown scripted model {name!r}; known: {', '.join(SCRIPTED_MODELS)}")
    return _AlsoMaintainer(factory())


class _AlsoMaintainer(ScriptedModel):
    """A scripted model that also serves the maintainer role (E-13: the maintainer defaults to the agent's model)."""

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model
        self.name = model.name

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ScriptedReply:
        from ._maintainer import is_maintainer_request, maintainer_reply

        if is_maintainer_request(messages):
            return maintainer_reply(messages)
        try:
            return self.model.reply(messages, tools)
        except UnreadableInput as exc:
            raise exc.named(self.name) from None
