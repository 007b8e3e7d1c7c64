"""What a selected protocol *is*: id, version, behaviour flags and resolved options (P-60).

The semantics modules (mapping, dispatcher, tools, maintenance, prompts) read this descriptor
only; ``_protocol.Protocol`` adds the methods that call them. Nothing here imports those modules,
so no import circle runs through the protocol object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ._options import StatePlacement, _Options

StateRole = Literal["assistant", "user"]


@dataclass(frozen=True)
class ProtocolVersion:
    """Base of the four protocols. Subclasses set the class variables."""

    options: _Options

    id: ClassVar[str]
    version: ClassVar[int]
    has_windows: ClassVar[bool] = True
    has_folds: ClassVar[bool] = True
    has_state_message: ClassVar[bool] = False
    requires_expected_window: ClassVar[bool] = False
    escape_non_ascii: ClassVar[bool] = False
    prompt_template: ClassVar[str]
    fixed_state_placement: ClassVar[StatePlacement | None] = None
    """Where a version without the ``stateMessagePlacement`` option puts context_state (v2: after the
    history, as an assistant message, P-71); ``None`` for versions without a state message."""

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"

    @property
    def resolved_options(self) -> dict[str, Any]:
        return self.options.model_dump()

    @property
    def state_placement(self) -> StatePlacement | None:
        """Where context_state goes: the ``stateMessagePlacement`` option where the version has it (its
        default lives in the options model only), else the version's fixed placement."""
        chosen = getattr(self.options, "stateMessagePlacement", None)
        return chosen if chosen is not None else self.fixed_state_placement

    @property
    def state_role(self) -> StateRole | None:
        """The role context_state is sent with (P-80: user only in placement C)."""
        placement = self.state_placement
        if placement is None:
            return None
        return "user" if placement == "trailing_user" else "assistant"
