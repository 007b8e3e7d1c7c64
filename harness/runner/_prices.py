"""The price table of a run (X-22): one ``Prices`` per model string, with where it came from.

Order: a CLI ``--price`` override, then the plan's ``models.prices``, then a built-in 0 for
``scripted/*`` models (they run in process and cost nothing), then litellm's offline cost map.
A model with none of these has no price; with ``maxUsd`` set that refuses the run at start.
The table is written into the report, so every USD figure can be re-derived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from harness.models import Prices, Usage
from harness.plan import Plan

PriceSource = Literal["cli", "plan", "scripted-builtin", "litellm"]


class PriceUnknown(Exception):
    """Models without a price while ``maxUsd`` is set; ``errors`` as JSON-path lines."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class PriceEntry:
    prices: Prices
    source: PriceSource

    def wire(self) -> dict[str, Any]:
        return {"inputPerMTok": self.prices.input_per_mtok, "outputPerMTok": self.prices.output_per_mtok,
                "cachedInputPerMTok": self.prices.cached_input_per_mtok, "source": self.source}


@dataclass
class PriceTable:
    entries: dict[str, PriceEntry] = field(default_factory=dict)

    def get(self, model: str) -> Prices | None:
        entry = self.entries.get(model)
        return entry.prices if entry else None

    def cost(self, model: str, usage: Usage) -> float:
        """USD of ``usage``; 0 for a model without a price (only possible when ``maxUsd`` is off,
        and then the report's price table says the price is unknown)."""
        prices = self.get(model)
        return prices.cost(usage) if prices else 0.0

    def wire(self, models: list[str]) -> dict[str, Any]:
        return {m: (self.entries[m].wire() if m in self.entries else {"source": "unknown"}) for m in models}


def _litellm_prices(model: str) -> Prices | None:
    from harness.models import ensure_litellm

    litellm, _ = ensure_litellm()
    try:
        info: dict[str, Any] = dict(litellm.get_model_info(model))
    except Exception:  # litellm raises a plain Exception for unmapped models
        return None
    cin, cout = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if cin is None or cout is None:
        return None
    cached = info.get("cache_read_input_token_cost")
    return Prices(input_per_mtok=float(cin) * 1e6, output_per_mtok=float(cout) * 1e6,
                  cached_input_per_mtok=None if cached is None else float(cached) * 1e6)


def build_price_table(
    plan: Plan, models: dict[str, str], cli_prices: dict[str, Prices] | None = None, max_usd: float | None = None
) -> PriceTable:
    """``models`` maps the role (``agent`` / ``maintainer``) to its model string."""
    table = PriceTable()
    errors: list[str] = []
    seen: set[str] = set()
    for role, model in models.items():
        if model in seen:
            continue
        seen.add(model)
        entry = _entry(plan, model, cli_prices or {})
        if entry is not None:
            table.entries[model] = entry
        elif max_usd is not None:
            errors.append(
                f"$.models.{role}: no price known for {model!r} while a USD cap is set; add "
                f"models.prices[{model!r}] to the plan or pass --price {model}=IN,OUT (USD per million tokens) (X-22)")
    if errors:
        raise PriceUnknown(errors)
    return table


def _entry(plan: Plan, model: str, cli: dict[str, Prices]) -> PriceEntry | None:
    if model in cli:
        return PriceEntry(cli[model], "cli")
    declared = plan.models.prices.get(model)
    if declared is not None:
        return PriceEntry(Prices(input_per_mtok=declared.inputPerMTok, output_per_mtok=declared.outputPerMTok,
                                 cached_input_per_mtok=declared.cachedInputPerMTok), "plan")
    if model.startswith("scripted/"):
        return PriceEntry(Prices(input_per_mtok=0.0, output_per_mtok=0.0), "scripted-builtin")
    known = _litellm_prices(model)
    return PriceEntry(known, "litellm") if known else None


def parse_price(text: str) -> tuple[str, Prices]:
    """``MODEL=IN,OUT[,CACHED]`` (USD per million tokens) → ``(model, Prices)``; ValueError otherwise."""
    model, sep, numbers = text.rpartition("=")
    parts = numbers.split(",")
    if not sep or not model or len(parts) not in (2, 3):
        raise ValueError(f"--price {text!r}: expected MODEL=IN,OUT[,CACHED] in USD per million tokens")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--price {text!r}: prices must be numbers") from None
    if any(v < 0 for v in values):
        raise ValueError(f"--price {text!r}: prices must not be negative")
    return model, Prices(input_per_mtok=values[0], output_per_mtok=values[1],
                         cached_input_per_mtok=values[2] if len(values) == 3 else None)
