"""Signatures the emulators mint for their own reasoning and verify when it comes back (HMAC-SHA256).

A provider signs what its model thought so a client cannot forge or alter it; the emulators do the
same with a per-server secret, so a client that drops, edits or invents a signature is caught.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any


class Signer:
    def __init__(self) -> None:
        self._secret = secrets.token_bytes(32)

    def sign(self, *parts: Any) -> str:
        data = json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()
        return base64.b64encode(hmac.new(self._secret, data, hashlib.sha256).digest()).decode()

    def verify(self, signature: object, *parts: Any) -> bool:
        return isinstance(signature, str) and hmac.compare_digest(signature, self.sign(*parts))
