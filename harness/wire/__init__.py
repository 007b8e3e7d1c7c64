"""The experiment as the provider receives it (P-80, E-11): provider bodies built offline by
litellm's own transformation, and read as the provider's turns.

Imports only ``harness.models`` and ``protocols``; litellm is imported on the first body built.
"""

from ._analysis import (
    WireDifference,
    WireState,
    WireTurn,
    WireView,
    analyze_wire,
    state_place,
    wire_difference,
    wire_differs_in,
    wire_summary,
)
from ._build import WireBuildError, build_wire_body
from ._turns import Turn, WireFormat, turns, wire_format

__all__ = [
    "Turn",
    "WireBuildError",
    "WireDifference",
    "WireFormat",
    "WireState",
    "WireTurn",
    "WireView",
    "analyze_wire",
    "build_wire_body",
    "state_place",
    "turns",
    "wire_difference",
    "wire_differs_in",
    "wire_format",
    "wire_summary",
]
