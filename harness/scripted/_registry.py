"""The scripted models by name (X-60 … X-62); ``scripted/<name>`` names the same model."""

from __future__ import annotations

from collections.abc import Callable

from ._chaos import ChaosModel
from ._last_user_follower import LastUserFollowerModel
from ._oracle import OracleModel
from ._prefill_continuer import PrefillContinuerModel
from ._repeater import RepeaterModel
from ._stale_intent import StaleIntentModel
from ._types import ScriptedModel

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
    return factory()
