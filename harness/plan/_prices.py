"""Unknown prices fail closed (X-22): with ``maxUsd`` set, every model must have a price.

A price comes from the plan (``models.prices``) or litellm's offline cost map. Scripted models
(``scripted/…``) run in process and cost nothing unless the plan prices them; a model served on a
loopback ``models.apiBase`` runs with its price unknown (``harness.runner._prices``). litellm is
imported only when a non-scripted model needs a lookup (its import takes seconds).
"""

from __future__ import annotations

from typing import Any

import harness

from ._models import Plan


def _litellm_knows(model: str) -> bool:
    harness.import_litellm()  # collector paused, then frozen
    import litellm  # harness/__init__ has set the offline switches already

    try:
        info: dict[str, Any] = dict(litellm.get_model_info(model))
    except Exception:  # litellm raises a plain Exception for unmapped models
        return False
    return info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None


def price_problems(plan: Plan, agent_model: str | None = None, maintainer_model: str | None = None) -> list[str]:
    """JSON-path problems for models without a known price while ``budget.maxUsd`` is set.

    ``agent_model`` / ``maintainer_model`` are CLI overrides (they replace the plan's models).
    """
    if plan.budget.maxUsd is None:
        return []
    agent = agent_model or plan.models.agent
    maintainer = maintainer_model or plan.models.maintainer or agent
    if _loopback(plan.models.apiBase):
        return []  # local models run with their price unknown; maxUsd does not apply to them
    out: list[str] = []
    for field, model in (("agent", agent), ("maintainer", maintainer)):
        if model.startswith("scripted/") or model in plan.models.prices:
            continue
        if field == "maintainer" and model == agent:
            continue
        if not _litellm_knows(model):
            out.append(
                f"$.models.{field}: no price known for {model!r} while budget.maxUsd is set; add "
                f"models.prices[{model!r}] (inputPerMTok, outputPerMTok) or pass --price {model}=IN,OUT to "
                "harness run (X-22)"
            )
    return out


def _loopback(api_base: str | None) -> bool:
    from harness.models import is_loopback

    return is_loopback(api_base)
