"""The protocol catalog (P-60, P-61): selection by id, version and options."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._errors import OptionsError
from ._options import (
    PrefixOptions,
    UnifiedV1Options,
    UnifiedV2Options,
    UnifiedV3Options,
    _Options,
    parse_options,
)
from ._protocol import Protocol


@dataclass(frozen=True)
class PrefixV2(Protocol):
    """prefix@2 (P-90): one history, host compression only, no context tools."""

    id = "prefix"
    version = 2
    has_windows = False
    has_folds = False
    prompt_template = "prefix_v2.j2"


@dataclass(frozen=True)
class UnifiedV1(Protocol):
    """unified@1: windows, folds, per-window prefix compression."""

    id = "unified"
    version = 1
    escape_non_ascii = True
    prompt_template = "unified_v1.j2"


@dataclass(frozen=True)
class UnifiedV2(Protocol):
    """unified@2 (P-70 … P-74): trailing assistant context_state, expectedWindowId."""

    id = "unified"
    version = 2
    has_state_message = True
    requires_expected_window = True
    prompt_template = "unified_v2.j2"
    fixed_state_placement = "trailing_assistant"  # P-71: after the history, as an assistant message


@dataclass(frozen=True)
class UnifiedV3(Protocol):
    """unified@3 (P-80 … P-84): experiment-only, the placement of context_state is an option."""

    id = "unified"
    version = 3
    has_state_message = True
    requires_expected_window = True
    prompt_template = "unified_v3.j2"


@dataclass(frozen=True)
class CatalogEntry:
    cls: type[Protocol]
    options: type[_Options]
    summary: str


CATALOG: dict[str, CatalogEntry] = {
    "prefix@2": CatalogEntry(PrefixV2, PrefixOptions, "host-maintained plain session: one history, "
                             "automatic prefix compression, no context tools (baseline)"),
    "unified@1": CatalogEntry(UnifiedV1, UnifiedV1Options, "windows, folds, per-window prefix compression"),
    "unified@2": CatalogEntry(UnifiedV2, UnifiedV2Options, "v1 plus a trailing assistant context_state and "
                              "expectedWindowId on write tools"),
    "unified@3": CatalogEntry(UnifiedV3, UnifiedV3Options, "experiment only: context_state placement "
                              "A/B/C with one position-neutral prompt"),
}

_REF = re.compile(r"^(?P<id>[a-z]+)@(?P<version>\d+)$")


def parse_ref(ref: str) -> tuple[str, int]:
    """``"unified@3"`` → ``("unified", 3)``."""
    m = _REF.match(ref.strip())
    if not m:
        raise OptionsError(f"protocol {ref!r} is not of the form <id>@<version>, e.g. unified@3")
    return m["id"], int(m["version"])


def resolve(protocol_id: str, version: int, options: dict[str, Any] | None = None) -> Protocol:
    """Select a protocol by id, version and options (``{}`` = that version's defaults)."""
    key = f"{protocol_id}@{version}"
    entry = CATALOG.get(key)
    if entry is None:
        known = ", ".join(CATALOG)
        raise OptionsError(f"unknown protocol {key!r}; the catalog has {known}")
    return entry.cls(parse_options(entry.options, options, key))


def resolve_ref(ref: str, options: dict[str, Any] | None = None) -> Protocol:
    return resolve(*parse_ref(ref), options)


def describe_catalog() -> list[dict[str, Any]]:
    """The catalog as data: each protocol's options schema, defaults, tools and summary.

    ``tools`` are offered to every agent; ``maintainerTools`` only to an agent bound to the host's
    context maintainer (``agent.contextMaintainer``), after ``tools``."""
    out = []
    for key, entry in CATALOG.items():
        proto = entry.cls(entry.options())
        schema = entry.options.model_json_schema()
        out.append({
            "protocol": key,
            "summary": entry.summary,
            "defaults": proto.resolved_options,
            "optionsSchema": schema,
            "tools": proto.tool_names(),
            "maintainerTools": proto.tool_names(maintainer_bound=True)[len(proto.tool_names()):],
        })
    return out
