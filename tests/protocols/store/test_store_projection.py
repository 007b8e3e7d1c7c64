"""The same state projects byte-identically from either backend (E-8, P-20, E-12, P-54).

Loads each state file of tests/protocols/data into a MemoryStore and a SqliteStore with
``load_state`` and compares ``json.dumps(protocol.project(...).wire())`` for every protocol and
placement; then again after archiving and after a maintenance run on both.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from protocols import LoadedState, MaintenanceRequest, load_state, maintain_window, resolve_ref
from protocols.store import MemoryStore, SessionStore, SqliteStore

DATA = Path(__file__).parent.parent / "data"
STATES = sorted(p.name for p in DATA.glob("*.json"))
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("prefix@2", {}), ("unified@1", {}), ("unified@2", {}),
    *[("unified@3", {"stateMessagePlacement": p})
      for p in ("trailing_assistant", "before_history_assistant", "trailing_user")],
]


def _load(name: str, store: SessionStore) -> LoadedState:
    return load_state(json.loads((DATA / name).read_text(encoding="utf-8")), store)


def _render(ref: str, options: dict[str, Any], loaded: LoadedState) -> str:
    request = resolve_ref(ref, options).project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    return json.dumps(request.wire(), ensure_ascii=False)


@pytest.fixture
def both(tmp_path: Path) -> Any:
    stores = (MemoryStore(), SqliteStore(tmp_path / "p.sqlite"))
    yield stores
    stores[1].close()


@pytest.mark.parametrize("name", STATES)
def test_e8_every_protocol_projects_byte_identically_from_both_backends(
    name: str, both: tuple[SessionStore, SessionStore]
) -> None:
    memory, sqlite = (_load(name, s) for s in both)
    for ref, options in VARIANTS:
        assert _render(ref, options, sqlite) == _render(ref, options, memory), (ref, options)


@pytest.mark.parametrize("name", STATES)
def test_e12_projection_is_identical_before_and_after_archiving(
    name: str, both: tuple[SessionStore, SessionStore]
) -> None:
    for store in both:
        loaded = _load(name, store)
        before = [_render(ref, options, loaded) for ref, options in VARIANTS]
        store.archive(loaded.session_id, loaded.frozen.upper_bound - 2)
        assert [_render(ref, options, loaded) for ref, options in VARIANTS] == before


async def _summarise(request: MaintenanceRequest) -> str:
    return f"{request.window_id}: " + "; ".join(f"#{m.index} {m.text()[:20]}" for m in request.messages)


@pytest.mark.parametrize("name", STATES)
def test_p54_maintenance_then_projection_is_identical_on_both_backends(
    name: str, both: tuple[SessionStore, SessionStore]
) -> None:
    renders = []
    for store in both:
        loaded = _load(name, store)
        protocol = resolve_ref("unified@1")
        window = str(store.kv_get(loaded.session_id, "activeWindow") or "main")
        result = asyncio.run(maintain_window(protocol, store, loaded.session_id, window, _summarise,
                                             keep_recent_groups=1, upper_bound=loaded.frozen.upper_bound))
        assert result.status == "compressed", result
        after = loaded.model_copy(update={"frozen": loaded.frozen.model_copy(
            update={"revision": store.revision(loaded.session_id)})})
        renders.append((result.wire(), _render("unified@1", {}, after), store.kv_all(loaded.session_id)))
    assert renders[0] == renders[1]
