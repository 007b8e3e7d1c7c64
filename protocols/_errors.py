"""The protocol error tree.

    ProtocolError
    ├── InvalidInput            the caller's mistake: bad options, bad state file (exit 2)
    │   └── OptionsError        unknown protocol, unknown option key, value out of range
    ├── ProjectionError         a state the mapping cannot project (P-15 pairing, unknown window);
    │                           in a live host this is a defect and is raised loudly
    ├── StoreError
    │   ├── RevisionConflict    commit() saw another revision than expected (E-9)
    │   └── KvLimitExceeded     a write over the key-count or value-size limit (P-7)
    └── CapacityExceeded        the fixed parts of a request alone exceed the model (P-55, E-14)

Tool-level rejections are *not* exceptions: they are structured tool results (see ``tools``).
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base of every error raised by ``protocols``."""


class InvalidInput(ProtocolError):
    """The caller gave something invalid; the message names the bad field."""


class OptionsError(InvalidInput):
    pass


class ProjectionError(ProtocolError):
    pass


class StoreError(ProtocolError):
    pass


class RevisionConflict(StoreError):
    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected KV revision {expected}, store is at {current}")
        self.expected = expected
        self.current = current


class KvLimitExceeded(StoreError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.code = "kv_limit_exceeded"


class CapacityExceeded(ProtocolError):
    def __init__(self, part: str, tokens: int, capacity: int) -> None:
        super().__init__(f"{part} alone needs {tokens} tokens; the model's capacity is {capacity}")
        self.part = part
        self.tokens = tokens
        self.capacity = capacity
