"""Protocol options (P-61, P-81) and host options (P-7, P-14, P-50, P-53).

Options are pydantic models: ``{}`` gives the version's defaults, unknown keys and out-of-range
values are refused with a message naming the field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._errors import OptionsError
from ._state import KvLimits

StatePlacement = Literal["trailing_assistant", "before_history_assistant", "trailing_user"]

PLACEMENT_GROUP = {"trailing_assistant": "A", "before_history_assistant": "B", "trailing_user": "C"}


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    guiProjection: bool = True
    pageSize: int = Field(200, ge=1, le=1000)
    checkpointMaxCharacters: int = Field(12000, ge=1000, le=24000)


class PrefixOptions(_Options):
    """prefix@2: one history, host compression only."""


class UnifiedV1Options(_Options):
    maxWindows: int = Field(128, ge=1, le=1024)
    maxFolds: int = Field(1024, ge=1, le=4096)


class UnifiedV2Options(UnifiedV1Options):
    checkpointMaxCharacters: int = Field(3000, ge=1000, le=24000)


class UnifiedV3Options(UnifiedV2Options):
    stateMessagePlacement: StatePlacement = "trailing_assistant"


def parse_options(model: type[_Options], raw: dict[str, Any] | None, protocol_key: str) -> _Options:
    """Validate options for one protocol; the error names every bad field."""
    try:
        return model.model_validate(raw or {})
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "(options)"
            if err["type"] == "extra_forbidden":
                problems.append(f"{field}: unknown option for {protocol_key}")
            else:
                problems.append(f"{field}: {err['msg']} (got {err.get('input')!r})")
        raise OptionsError(f"invalid options for {protocol_key}: " + "; ".join(problems)) from None


class MaintenanceOptions(BaseModel):
    """Host maintenance settings (P-50, P-53)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    thresholdTokens: int | None = Field(None, ge=1)
    """Compress a window once a step's real input tokens reach this; ``None`` = never automatically."""
    keepRecentGroups: int = Field(4, ge=0)


class HostOptions(BaseModel):
    """Options of the host, not of a protocol."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    toolResultPreviewCharacters: int = Field(8000, ge=100)
    maintenance: MaintenanceOptions = MaintenanceOptions()
    kvLimits: KvLimits = KvLimits()
