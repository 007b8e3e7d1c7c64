"""Session stores: one interface, two backends (E-8)."""

from ._base import JsonValue, KvChanges, SessionStore
from ._memory import MemoryStore
from ._sqlite import SqliteStore

__all__ = ["JsonValue", "KvChanges", "MemoryStore", "SessionStore", "SqliteStore"]
