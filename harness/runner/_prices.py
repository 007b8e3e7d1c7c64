"""The price table of a run (X-22): one ``Prices`` per model string, with where it came from.

Order: a CLI ``--price`` override, then the plan's ``models.prices``, then a built-in 0 for
``scripted/*`` models (they run in process and cost nothing), then litellm's offline cost map. On a
loopback ``api_base`` the map's price is kept only for a hosted model's name it knows on a provider's own
route (``anthropic/claude-…``, ``gemini/…``; not the OpenAI-compatible routes local servers answer on,
``LOCAL_SERVER_PROVIDERS``): a gateway on this machine (a LiteLLM proxy on 127.0.0.1:4000) in
front of the hosted model, source ``litellm-gateway``. A name the map does not know there is a local
server's model (llama.cpp, vLLM, Ollama): *price unknown (local model)*. A remote model with none of
these has no price; with ``maxUsd`` set that refuses the run at start (X-22). A local model's calls are
never priced: its cost reads "price unknown (local model)" everywhere and ``maxUsd`` does not apply to
it, while the token and call caps do. The table is written into the report, so every USD figure can be
re-derived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from harness.models import Prices, Usage, is_loopback
from harness.plan import Plan

PriceSource = Literal["cli", "plan", "scripted-builtin", "litellm", "litellm-gateway", "local-unknown"]
LOCAL_UNKNOWN = "price unknown (local model)"
"""How a local model's cost reads wherever a USD figure would be (console, report.md/html/json)."""


class PriceUnknown(Exception):
    """Remote models without a price while ``maxUsd`` is set; ``errors`` name the model and the two
    ways to give a price (``--price`` or the plan's ``models.prices``)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class PriceEntry:
    prices: Prices | None
    """None only for ``local-unknown``: the model is run, its cost is unknown."""
    source: PriceSource
    gateway: str | None = None
    """``host:port`` of the loopback gateway a ``litellm-gateway`` price's model is served through."""

    def wire(self) -> dict[str, Any]:
        p = self.prices
        out = {"inputPerMTok": None if p is None else p.input_per_mtok,
               "outputPerMTok": None if p is None else p.output_per_mtok,
               "cachedInputPerMTok": None if p is None else p.cached_input_per_mtok, "source": self.source}
        return out | ({"gateway": self.gateway} if self.gateway else {})


@dataclass
class PriceTable:
    entries: dict[str, PriceEntry] = field(default_factory=dict)

    def get(self, model: str) -> Prices | None:
        entry = self.entries.get(model)
        return entry.prices if entry else None

    def cost(self, model: str, usage: Usage) -> float:
        """USD of ``usage`` counted against ``maxUsd``; 0 for a model without a price (a local model,
        or a remote one when ``maxUsd`` is off): the report says its price is unknown."""
        prices = self.get(model)
        return prices.cost(usage) if prices else 0.0

    def known(self, model: str) -> bool:
        return self.get(model) is not None

    def unpriced(self, models: list[str]) -> list[str]:
        """Of ``models``, those whose cost is unknown (their calls are not in any USD total)."""
        return sorted({m for m in models if not self.known(m)})

    def note(self, model: str) -> str:
        """How the model's price reads in a caveat: its source, or why it is unknown."""
        entry = self.entries.get(model)
        if entry is None:
            return "price unknown (not in litellm's map; no --price or models.prices)"
        if entry.prices is None:
            return f"{LOCAL_UNKNOWN}: its USD cost is not counted and maxUsd does not apply to it"
        if entry.source == "litellm-gateway":
            return f"litellm's price for {model} (served through the gateway at {entry.gateway})"
        return {"cli": "--price", "plan": "the plan's models.prices", "scripted-builtin": "built in ($0, scripted)",
                "litellm": "litellm's price map"}.get(entry.source, entry.source)

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


def missing_price(model: str, role: str, max_usd: float) -> str:
    """The X-22 refusal for one model: what is missing and the two ways to give it."""
    return (f"no price known for {model!r} ({role} model) while a USD cap is set (maxUsd {max_usd:g}); give one "
            f"with --price {model}=IN,OUT (USD per million tokens) or in the plan's models.prices[{model!r}] "
            "(inputPerMTok, outputPerMTok), or serve it locally (a loopback --api-base runs with its price "
            "unknown) (X-22)")


def build_price_table(
    plan: Plan, models: dict[str, str], cli_prices: dict[str, Prices] | None = None, max_usd: float | None = None,
    api_base: str | None = None,
) -> PriceTable:
    """``models`` maps the role (``agent`` / ``maintainer``) to its model string; ``api_base`` is
    where both are served (a loopback one makes an unpriced model *local-unknown*, never refused)."""
    table = PriceTable()
    errors: list[str] = []
    seen: set[str] = set()
    for role, model in models.items():
        if model in seen:
            continue
        seen.add(model)
        entry = _entry(plan, model, cli_prices or {}, api_base)
        if entry is not None:
            table.entries[model] = entry
        elif max_usd is not None:
            errors.append(missing_price(model, role, max_usd))
    if errors:
        raise PriceUnknown(errors)
    return table


def _entry(plan: Plan, model: str, cli: dict[str, Prices], api_base: str | None) -> PriceEntry | None:
    if model in cli:
        return PriceEntry(cli[model], "cli")
    declared = plan.models.prices.get(model)
    if declared is not None:
        return PriceEntry(Prices(input_per_mtok=declared.inputPerMTok, output_per_mtok=declared.outputPerMTok,
                                 cached_input_per_mtok=declared.cachedInputPerMTok), "plan")
    if model.startswith("scripted/"):
        return PriceEntry(Prices(input_per_mtok=0.0, output_per_mtok=0.0), "scripted-builtin")
    known = _litellm_prices(model)
    if is_loopback(api_base):
        if known is None or _provider(model) in LOCAL_SERVER_PROVIDERS:
            return PriceEntry(None, "local-unknown")
        return PriceEntry(known, "litellm-gateway", _host(api_base))
    return PriceEntry(known, "litellm") if known else None


LOCAL_SERVER_PROVIDERS = frozenset({"openai", "custom_openai", "text-completion-openai", "hosted_vllm", "ollama",
                                    "ollama_chat", "llamafile", "lm_studio"})
"""litellm's OpenAI-compatible routes, the ones local servers (llama.cpp, vLLM, Ollama) answer on: there the
model name is whatever the server was started with, so a hosted name priced by litellm says nothing."""


def _provider(model: str) -> str | None:
    from harness.models import ensure_litellm

    litellm, _ = ensure_litellm()
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # a string litellm cannot place
        return None


def _host(api_base: str | None) -> str:
    parts = urlsplit(api_base or "")
    return parts.netloc.rpartition("@")[2] or str(api_base)


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
