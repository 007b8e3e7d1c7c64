"""Capture of the provider-level request body (E-11) through a litellm ``CustomLogger``.

litellm hands ``log_pre_api_call`` the body it is about to send
(``kwargs["additional_args"]["complete_input_dict"]``) next to the raw API key; only the body is
copied, as its JSON text (``ensure_ascii=False``, odd leaves stringified), keyed by the ``litellm_call_id``
the adapter chose for that attempt. The adapter redacts it as text (``redacted_json_text``): the text is
encoded once and scanned once, and a clean body is neither decoded nor walked; it reaches the snapshot as it is.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from litellm.integrations.custom_logger import CustomLogger


class RequestCapture(CustomLogger):
    def __init__(self) -> None:
        super().__init__()
        self._bodies: dict[str, str] = {}
        self._lock = threading.Lock()

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        call_id = kwargs.get("litellm_call_id")
        body = (kwargs.get("additional_args") or {}).get("complete_input_dict")
        if not isinstance(call_id, str) or not isinstance(body, dict):
            return
        # The JSON text detaches the copy from litellm's objects (and stringifies odd leaves).
        text = json.dumps(body, default=str, ensure_ascii=False)
        with self._lock:
            self._bodies[call_id] = text

    def pop(self, call_id: str) -> str | None:
        """The body's JSON text (``ensure_ascii=False``), unredacted: redact it with ``redacted_json_text``."""
        with self._lock:
            return self._bodies.pop(call_id, None)

