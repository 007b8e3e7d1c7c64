"""The protocol semantics of the unified context protocol family (P-*). Imports nothing from harness."""

from ._catalog import (
    CATALOG,
    PrefixV2,
    UnifiedV1,
    UnifiedV2,
    UnifiedV3,
    describe_catalog,
    parse_ref,
    resolve,
    resolve_ref,
)
from ._derived import STATE_VIEW_V3
from ._dispatch import Dispatched
from ._errors import (
    CapacityExceeded,
    InvalidInput,
    KvLimitExceeded,
    OptionsError,
    ProjectionError,
    ProtocolError,
    RevisionConflict,
    StoreError,
)
from ._groups import Group, interaction_groups
from ._json import MAX_JSON_DEPTH, JsonRejected, loads_strict
from ._maintenance import (
    Maintainer,
    MaintainerBinding,
    MaintenanceRequest,
    MaintenanceResult,
    maintain_window,
    should_maintain,
)
from ._messages import RUN_ID_RE, FrozenView, MessageDraft, RawMessage, ToolCall, new_run_id
from ._options import HostOptions, MaintenanceOptions, StatePlacement
from ._projection_types import AgentConfig, ProjectedRequest, ProjectionSource
from ._protocol import PLACEHOLDER, Protocol
from ._state import MAIN_WINDOW, Checkpoint, CurrentWindowEntry, Fold, KvLimits, WindowRecord
from ._statefile import LoadedState, dump_state, load_state, read_state_file
from ._text import canonical_json, utf16_len, utf16_slice
from ._version import ProtocolVersion
from .tools import COMPRESS_TOOL

__all__ = [
    "CATALOG", "COMPRESS_TOOL", "MAIN_WINDOW", "MAX_JSON_DEPTH", "PLACEHOLDER", "RUN_ID_RE", "STATE_VIEW_V3",
    "AgentConfig", "CapacityExceeded", "Checkpoint", "CurrentWindowEntry", "Dispatched", "Fold", "FrozenView",
    "Group",
    "HostOptions", "InvalidInput", "JsonRejected", "KvLimitExceeded", "KvLimits", "LoadedState", "MaintenanceOptions",
    "MessageDraft", "OptionsError", "PrefixV2", "ProjectedRequest", "ProjectionError", "ProjectionSource",
    "Protocol", "ProtocolError", "ProtocolVersion", "RawMessage", "RevisionConflict", "StatePlacement", "StoreError",
    "ToolCall",
    "UnifiedV1", "UnifiedV2", "UnifiedV3", "WindowRecord",
    "canonical_json", "describe_catalog", "dump_state", "interaction_groups", "load_state", "loads_strict",
    "new_run_id",
    "parse_ref", "read_state_file", "resolve", "resolve_ref", "utf16_len", "utf16_slice",
    "Maintainer", "MaintainerBinding", "MaintenanceRequest", "MaintenanceResult", "maintain_window", "should_maintain",
]
