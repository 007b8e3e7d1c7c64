"""The experiment as the provider receives it (P-80, E-11): provider bodies built offline by
litellm's own transformation, read as the provider's turns, and checked against one table of
provider rules with their sources.

Imports only ``harness.models`` and ``protocols``; litellm is imported on the first body built.
"""

from ._analysis import (
    WireDifference,
    WireNote,
    WireState,
    WireTreatment,
    WireTurn,
    WireView,
    analyze_wire,
    state_place,
    wire_difference,
    wire_differs_in,
    wire_summary,
)
from ._build import (
    WireBuildError,
    build_wire_body,
    output_cap,
    provider_of,
    request_wire_body,
    thinking_budget,
)
from ._params import SAMPLING, UnsentParam, refusal, unsent_params
from ._preflight import (
    StateTreatment,
    Verdict,
    compare_bodies,
    panel_notes,
    preflight_body,
    state_treatment,
    thinking_in,
    worst,
)
from ._routes import ROUTES, Route, RouteName, RouteRules, route_of, route_rules
from ._rules import (
    RULE_BY_ID,
    RULES,
    SEVERITY,
    TREATMENTS,
    Rule,
    Treatment,
    VerdictKind,
    claude_takes_prefill,
    claude_version,
    gemini_takes_trailing_model_turn,
    gemini_version,
)
from ._turns import Turn, WireFormat, turns, wire_format

__all__ = [
    "ROUTES",
    "RULES",
    "RULE_BY_ID",
    "SAMPLING",
    "SEVERITY",
    "TREATMENTS",
    "Route",
    "RouteName",
    "RouteRules",
    "Rule",
    "StateTreatment",
    "Treatment",
    "Turn",
    "UnsentParam",
    "Verdict",
    "VerdictKind",
    "WireBuildError",
    "WireDifference",
    "WireNote",
    "WireFormat",
    "WireState",
    "WireTreatment",
    "WireTurn",
    "WireView",
    "analyze_wire",
    "build_wire_body",
    "claude_takes_prefill",
    "compare_bodies",
    "claude_version",
    "gemini_takes_trailing_model_turn",
    "gemini_version",
    "output_cap",
    "panel_notes",
    "preflight_body",
    "provider_of",
    "refusal",
    "request_wire_body",
    "route_of",
    "route_rules",
    "state_place",
    "state_treatment",
    "thinking_budget",
    "thinking_in",
    "turns",
    "unsent_params",
    "wire_difference",
    "wire_differs_in",
    "wire_format",
    "wire_summary",
    "worst",
]
