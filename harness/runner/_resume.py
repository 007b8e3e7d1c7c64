"""What a resume restores: the settings a run was started with, unless the command line
overrides them.

A run keeps its settings in run.json (``"settings"``), a sweep in ``D/settings.json``: models,
API base (without credentials, O-30), group and stage selection, concurrency, model workers, response cache,
``--max-usd``, ``--max-total-tokens``, ``--max-llm-calls``, ``--max-wall-seconds``, every
``--price`` and ``--send-rejected``. ``harness run PLAN --resume DIR`` then continues the run as it
was started: a resumed local model keeps its price, its concurrency and its server. Anything given
on the command line wins, and is what the next resume restores. An API base with credentials in it
is stored without them: pass ``--api-base`` again when resuming such a run.

A run stopped by a cap (``budget_exhausted:<cap>``) would stop again at once when resumed with the
same cap: what it spent counts on. ``budget_stop`` says so, naming the cap, its limit and what was
spent, and gives the option that raises the cap for the resume (or says plainly that none can).
"""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.models import Prices, public_api_base

from ._budget import CAP_FIELDS
from ._persist import MANIFEST, ResumeRefused

SWEEP_SETTINGS = "settings.json"


@dataclass
class RunChoices:
    """What ``harness run`` was told; ``None`` (an empty dict for prices) = not given."""

    models: list[str] = field(default_factory=list)
    maintainer: str | None = None
    api_base: str | None = None
    groups: list[str] | None = None
    stages: list[str] | None = None
    concurrency: int | None = None
    max_usd: float | None = None
    max_total_tokens: int | None = None
    max_llm_calls: int | None = None
    max_wall_seconds: float | None = None
    prices: dict[str, Prices] = field(default_factory=dict)
    cache_dir: Path | None = None
    send_rejected: bool | None = None
    model_workers: int | None = None


def recorded_settings(request: Any) -> dict[str, Any]:
    """The settings of a ``RunRequest`` as run.json keeps them."""
    s = request.settings
    return {"agentModel": s.agent_model, "maintainerModel": s.maintainer_model,
            "apiBase": public_api_base(s.api_base), "groups": s.groups, "stages": s.stages,
            "concurrency": s.concurrency, "cacheDir": None if s.cache_dir is None else str(s.cache_dir),
            "maxUsd": request.max_usd, "maxTotalTokens": request.max_total_tokens,
            "maxLlmCalls": request.max_llm_calls, "maxWallSeconds": request.max_wall_seconds,
            "prices": {m: p.model_dump(mode="json") for m, p in sorted(request.cli_prices.items())},
            "sendRejected": s.send_rejected, "modelWorkers": s.model_workers}


def write_sweep_settings(request: Any) -> None:
    """``D/settings.json`` of a sweep: its shared settings (each model's run.json keeps its own)."""
    data = {k: v for k, v in recorded_settings(request).items() if k not in ("agentModel", "maintainerModel")}
    path = request.out_dir / SWEEP_SETTINGS
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_settings(directory: Path, sweep: bool) -> dict[str, Any]:
    """The recorded settings of a run (or sweep) directory; {} for one written before they were kept."""
    path = directory / (SWEEP_SETTINGS if sweep else MANIFEST)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ResumeRefused(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ResumeRefused(f"{path} is not a JSON object")
    if sweep:
        return data
    settings = data.get("settings")
    if isinstance(settings, dict):
        return settings
    return {k: data[k] for k in ("agentModel", "maintainerModel", "apiBase") if k in data}  # older runs


def restore(given: RunChoices, recorded: dict[str, Any]) -> RunChoices:
    """``given`` with everything it leaves out taken from ``recorded``; prices merge per model."""
    try:
        prices = {m: Prices.model_validate(p) for m, p in (recorded.get("prices") or {}).items()}
    except (ValueError, AttributeError) as exc:
        raise ResumeRefused(f"the recorded prices cannot be read: {exc}") from None
    cache = recorded.get("cacheDir")

    def pick(value: Any, key: str) -> Any:
        return value if value is not None else recorded.get(key)

    models = given.models or ([recorded["agentModel"]] if recorded.get("agentModel") else [])
    return dataclasses.replace(
        given, models=models, maintainer=pick(given.maintainer, "maintainerModel"),
        api_base=pick(given.api_base, "apiBase"), groups=pick(given.groups, "groups"),
        stages=pick(given.stages, "stages"), concurrency=pick(given.concurrency, "concurrency"),
        max_usd=pick(given.max_usd, "maxUsd"), max_total_tokens=pick(given.max_total_tokens, "maxTotalTokens"),
        max_llm_calls=pick(given.max_llm_calls, "maxLlmCalls"),
        max_wall_seconds=pick(given.max_wall_seconds, "maxWallSeconds"), prices={**prices, **given.prices},
        cache_dir=given.cache_dir if given.cache_dir is not None else (Path(cache) if cache else None),
        send_rejected=given.send_rejected or bool(recorded.get("sendRejected")),
        model_workers=pick(given.model_workers, "modelWorkers"))




CAP_OPTIONS: dict[str, str] = {"maxUsd": "--max-usd", "maxTotalTokens": "--max-total-tokens",
                               "maxLlmCalls": "--max-llm-calls", "maxWallSeconds": "--max-wall-seconds"}
"""The plan's budget field → the ``harness run`` option that overrides it (the others have none)."""


@dataclass
class BudgetStop:
    """Why a run (or sweep) stopped at a cap, and how a resume can continue it."""

    text: str
    option: list[str]
    """``[OPTION, VALUE]`` raising the cap for the resume; empty when no option can."""


def _amount(field_name: str, value: float | None) -> str:
    if value is None:
        return "an unknown amount (a model's price is unknown)"
    if field_name == "maxUsd":
        return f"${value:,.4f}"
    unit = {"maxWallSeconds": "s", "maxLlmCalls": "model calls"}.get(field_name, "tokens")
    return f"{value:,.0f} {unit}"


def _used(cap: str, spent: dict[str, Any]) -> float | None:
    if cap == "totalTokens":
        return float(spent.get("inputTokens") or 0) + float(spent.get("outputTokens") or 0)
    value = spent.get(cap)
    return None if value is None else float(value)


WALL_MARGIN_S = 60.0
"""A wall-clock resume gets at least this much more time: each process also spends seconds starting
(imports, the first call), which the wall clock counts."""
NEARLY_SPENT = 0.9
"""Another cap this far spent is raised by the resume hint too, or the resume would stop at it next."""


def _raised(field_name: str, limit: float, used: float | None) -> str:
    """The value the resume hint gives a cap: twice the limit; wall time: what was used plus another
    limit, at least ``WALL_MARGIN_S`` more (twice a small limit would be spent starting up)."""
    if field_name == "maxWallSeconds":
        return str(math.ceil((used or limit) + max(limit, WALL_MARGIN_S)))
    return f"{2 * limit:g}" if field_name == "maxUsd" else str(int(2 * limit))


def budget_stop(stop_reason: str | None, limits: dict[str, Any], spent: dict[str, Any],
                whose: str = "the run's") -> BudgetStop | None:
    """For ``budget_exhausted:<cap>`` (or ``wall_clock``): the cap, its limit, what was spent, and the
    options that let a resume continue: the cap raised, and any other cap already ``NEARLY_SPENT``
    (else the resume stops at that one next). ``limits``: the budget's fields (report.json's
    ``budget.limits``); ``spent``: its ``budget.spent``. None for any other stop."""
    if stop_reason == "wall_clock":
        cap = "wallSeconds"
    elif stop_reason and stop_reason.startswith("budget_exhausted:"):
        cap = stop_reason.split(":", 1)[1]
    else:
        return None
    field_name = "maxWallSeconds" if cap == "wallSeconds" else CAP_FIELDS.get(cap, cap)
    limit = limits.get(field_name)
    if limit is None:
        return None
    used = _used(cap, spent)
    text = (f"{whose} {field_name} is {_amount(field_name, limit)} and {_amount(field_name, used)} "
            "were spent; a resume counts what was spent, so with the same cap it would stop again at once")
    option = CAP_OPTIONS.get(field_name)
    if option is None:
        return BudgetStop(text + f". {field_name} has no command-line override, so a resume cannot continue: a plan "
                          f"with a larger budget.{field_name} is a new run (a resumed run keeps its plan)", [])
    options = [option, _raised(field_name, limit, used)]
    also = []
    for other_cap, other_field in [*((c, f) for c, f in CAP_FIELDS.items()), ("wallSeconds", "maxWallSeconds")]:
        other_limit, other_used = limits.get(other_field), _used(other_cap, spent)
        if (other_field == field_name or other_field not in CAP_OPTIONS or other_limit is None or other_used is None
                or other_used < NEARLY_SPENT * other_limit or CAP_OPTIONS[other_field] in options):
            continue
        options += [CAP_OPTIONS[other_field], _raised(other_field, other_limit, other_used)]
        also.append(f"{other_field} ({_amount(other_field, other_used)} of {_amount(other_field, other_limit)})")
    hint = "; raise the cap with " + option + (" (the command below doubles it)" if field_name != "maxWallSeconds"
                                                 else " (the command below adds the limit again, at least 60 s)")
    if also:
        hint += f", and {', '.join(also)}, nearly spent too, is raised likewise"
    return BudgetStop(text + hint, options)


def resume_command(plan_path: str, directory: Path, extra: list[str] | None = None) -> str:
    """The exact command that continues a stopped run: every setting is restored from the directory;
    ``extra``: options that must change for it to continue (a raised cap, ``budget_stop``)."""
    return " ".join([f"harness run {shlex.quote(plan_path)} --resume {shlex.quote(str(directory))}",
                     *map(shlex.quote, extra or [])])
