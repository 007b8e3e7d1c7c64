"""``make_model``: a model string (as in a plan or on the CLI) to a ``ChatModel``."""

from __future__ import annotations

from ._litellm import LiteLLMModel
from ._pricing import Prices
from ._scripted_call import ResolveModel, scripted_name
from ._setup import resolve_scripted, scripted_registered, use_scripted
from ._types import ChatModel


def make_model(
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    prices: Prices | None = None,
    max_retries: int = 3,
    backoff_base_s: float = 0.5,
    max_backoff_s: float = 20,
    scripted: ResolveModel | None = None,
) -> ChatModel:
    """Any litellm model string; ``scripted/<name>`` goes through litellm's ``scripted`` provider to
    the registry ``scripted`` (``harness.scripted.get_scripted``), which this call installs
    process-wide (``use_scripted``).

    An unknown scripted name is the caller's mistake and raises ``ValueError`` now, not mid-run.
    """
    if not model or not model.strip():
        raise ValueError("model must be a non-empty litellm model string")
    if scripted is not None:
        use_scripted(scripted)
    if model.startswith("scripted/"):
        name = scripted_name(model)
        if not scripted_registered():
            raise ValueError(f"{model}: no scripted models are registered in this process (the caller hands "
                             "make_model the registry: scripted=harness.scripted.get_scripted)")
        try:
            resolve_scripted(name)
        except KeyError:
            raise ValueError(f"unknown scripted model {name!r}") from None
    return LiteLLMModel(
        model,
        api_base=api_base,
        api_key_env=api_key_env,
        prices=prices,
        max_retries=max_retries,
        backoff_base_s=backoff_base_s,
        max_backoff_s=max_backoff_s,
    )
