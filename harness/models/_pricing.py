"""Cost of one call: declared prices first, else litellm's cost map, else unknown (never $0).

A model served on a loopback ``api_base`` is never priced from litellm's map: a local server is not
the provider's hosted model, even when it answers to the same name.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._types import Usage


class Prices(BaseModel):
    """Declared USD prices per million tokens (plan or CLI). ``cached_input`` defaults to ``input``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cached_input_per_mtok: float | None = Field(default=None, ge=0)

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached_input_tokens, usage.input_tokens)
        cached_price = self.input_per_mtok if self.cached_input_per_mtok is None else self.cached_input_per_mtok
        return (
            (usage.input_tokens - cached) * self.input_per_mtok
            + cached * cached_price
            + usage.output_tokens * self.output_per_mtok
        ) / 1_000_000


def litellm_pricing(prices: Prices | None) -> dict[str, float]:
    """litellm's own per-call pricing kwargs (``input_cost_per_token``, ``output_cost_per_token``,
    ``cache_read_input_token_cost``: litellm 1.110.2 ``CustomPricingLiteLLMParams``, litellm-owned, never sent
    to the provider) for declared prices, so litellm prices its response from them instead of searching its
    catalogue for the model on every call (py-spy of litellm alone on Q-3's bodies: that search was about a
    fifth of litellm's CPU per call for a model not in its map). The harness never reads litellm's figure: its
    own cost is ``price_call``'s. Nothing when no price is declared, and nothing when both the input and output
    prices are 0: litellm's response cost is then 0 and its zero-cost diagnostic searches the catalogue anyway,
    on top of the per-call entry (measured: slower than passing nothing)."""
    if prices is None or not (prices.input_per_mtok or prices.output_per_mtok):
        return {}
    out = {"input_cost_per_token": prices.input_per_mtok / 1_000_000,
           "output_cost_per_token": prices.output_per_mtok / 1_000_000}
    if prices.cached_input_per_mtok is not None:
        out["cache_read_input_token_cost"] = prices.cached_input_per_mtok / 1_000_000
    return out


def price_call(
    model: str, usage: Usage, prices: Prices | None, litellm: Any, local: bool = False
) -> tuple[float | None, bool]:
    """``(usd, price_known)`` for one call. ``litellm`` is the imported module (kept lazy);
    ``local``: the model is served on loopback, so only declared prices count."""
    if prices is not None:
        return prices.cost(usage), True
    if local:
        return None, False
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=usage.input_tokens,
            completion_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cached_input_tokens,
        )
    except Exception:  # litellm raises plain Exception for "isn't mapped yet"
        return None, False
    return float(prompt_cost) + float(completion_cost), True
