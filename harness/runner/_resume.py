"""What a resume restores (issue 12): the settings a run was started with, unless the command line
overrides them.

A run keeps its settings in run.json (``"settings"``), a sweep in ``D/settings.json``: models,
API base (without credentials, O-30), group and stage selection, concurrency, response cache,
``--max-usd`` and every ``--price``. ``harness run PLAN --resume DIR`` then continues the run as it
was started: a resumed local model keeps its price, its concurrency and its server. Anything given
on the command line wins, and is what the next resume restores. An API base with credentials in it
is stored without them: pass ``--api-base`` again when resuming such a run.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.models import Prices, public_api_base

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
    prices: dict[str, Prices] = field(default_factory=dict)
    cache_dir: Path | None = None


def recorded_settings(request: Any) -> dict[str, Any]:
    """The settings of a ``RunRequest`` as run.json keeps them."""
    s = request.settings
    return {"agentModel": s.agent_model, "maintainerModel": s.maintainer_model,
            "apiBase": public_api_base(s.api_base), "groups": s.groups, "stages": s.stages,
            "concurrency": s.concurrency, "cacheDir": None if s.cache_dir is None else str(s.cache_dir),
            "maxUsd": request.max_usd,
            "prices": {m: p.model_dump(mode="json") for m, p in sorted(request.cli_prices.items())}}


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
        max_usd=pick(given.max_usd, "maxUsd"), prices={**prices, **given.prices},
        cache_dir=given.cache_dir if given.cache_dir is not None else (Path(cache) if cache else None))


def resume_command(plan_path: str, directory: Path) -> str:
    """The exact command that continues a stopped run: every setting is restored from the directory."""
    return f"harness run {shlex.quote(plan_path)} --resume {shlex.quote(str(directory))}"
