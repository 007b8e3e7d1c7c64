"""The experiment as the provider receives it (P-80, E-11): provider bodies built offline by
litellm's own transformation.

Imports only ``harness.models`` and ``protocols``; litellm is imported on the first body built.
"""

from ._build import WireBuildError, build_wire_body

__all__ = ["WireBuildError", "build_wire_body"]
