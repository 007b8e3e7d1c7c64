"""The store contract suite runs once per backend (E-8: both pass the same suite)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocols.store import MemoryStore, SessionStore, SqliteStore


def make_store(backend: str, tmp_path: Path) -> SessionStore:
    if backend == "memory":
        return MemoryStore()
    return SqliteStore(tmp_path / "store.sqlite")


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    s = make_store(request.param, tmp_path)
    yield s
    if isinstance(s, SqliteStore):
        s.close()
