"""The engine's settings, sessions and snapshots (E-1, E-2, E-11, O-30): what a run of the host reads and writes
through (``_run``); ``Engine`` adds the runs."""

from __future__ import annotations

import uuid
from typing import Any

from harness.business_tools import BusinessTools
from harness.models import ChatModel, secrets_from_env
from protocols import AgentConfig, HostOptions, ProjectionSource, Protocol
from protocols._state import ACTIVE_WINDOW, MAIN_WINDOW
from protocols.store import SessionStore
from protocols.tools import ToolSchemas

from ._encode import EncodedRequest, snapshot_json
from ._guard import CallGuard
from ._tools import ToolRouter
from ._types import RunLimits


class EngineBase:
    """The settings of one protocol, one agent, one model, and the sessions and snapshots of one store."""

    def __init__(
        self,
        *,
        store: SessionStore,
        protocol: Protocol,
        agent: AgentConfig,
        model: ChatModel,
        model_name: str,
        business: BusinessTools | None = None,
        host: HostOptions | None = None,
        limits: RunLimits | None = None,
        maintainer_model: ChatModel | None = None,
        maintainer_name: str | None = None,
        guard: CallGuard | None = None,
        capacity_tokens: int | None = None,
    ) -> None:
        self.store = store
        self.protocol = protocol
        self.agent = agent
        self.model = model
        self.model_name = model_name
        self.business = business
        self.host = host or HostOptions()
        self.limits = limits or RunLimits()
        self.maintainer_model = maintainer_model or model
        self.maintainer_name = maintainer_name or model_name
        self.guard = guard
        self.capacity_tokens = capacity_tokens
        self.maintainer_bound = agent.contextMaintainer and protocol.has_windows
        self.router = ToolRouter(protocol, business, maintainer_bound=self.maintainer_bound)
        # kept as the code that builds them: each step's request gets its own (Q-2: no content check per step)
        self.business_schemas = ToolSchemas(business.schemas()) if business else ToolSchemas([])
        self._secrets = tuple(sorted(secrets_from_env()))
        self._seq: dict[str, int] = {}

    # sessions --------------------------------------------------------------------------------
    def create_session(self, session_id: str | None = None) -> str:
        session_id = session_id or uuid.uuid4().hex
        self.store.create_session(session_id, {ACTIVE_WINDOW: MAIN_WINDOW})
        return session_id

    def active_window(self, session_id: str) -> str:
        if not self.protocol.has_windows:
            return MAIN_WINDOW
        return str(self.store.kv_get(session_id, ACTIVE_WINDOW) or MAIN_WINDOW)

    # snapshots ---------------------------------------------------------------------------------
    def next_seq(self, session_id: str) -> int:
        if session_id not in self._seq:
            self._seq[session_id] = len(self.store.snapshots(session_id))
        self._seq[session_id] += 1
        return self._seq[session_id]

    def snapshot(self, session_id: str, data: dict[str, Any], sources: list[ProjectionSource] | None = None,
                 request: EncodedRequest | None = None) -> str:
        """Write one call's snapshot (``snapshot_text``)."""
        snapshot_id, text = self.snapshot_text(session_id, data, sources, request)
        self.store.put_snapshot_json(session_id, snapshot_id, text)
        return snapshot_id

    def snapshot_text(self, session_id: str, data: dict[str, Any], sources: list[ProjectionSource] | None = None,
                      request: EncodedRequest | None = None) -> tuple[str, str]:
        """One call's snapshot id and JSON, redacted (O-30), joined from pieces encoded once per content
        (``snapshot_json``): ``sources`` its ``sources``, ``request`` the encoding its hash was taken from."""
        snapshot_id = f"{session_id}/{data['seq']}"
        return snapshot_id, snapshot_json({"id": snapshot_id, **data}, sources, self._secrets, request)
