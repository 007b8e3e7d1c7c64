"""The frames between the runner process and a model worker: a 4-byte big-endian length, then a pickle.

Runner → worker: ``("call", id, spec, request)``, ``("cancel", id)``. Worker → runner: ``("ready", pid)``,
``("ok", id, output, scanned)`` (``scanned``: the output's provider body passed the redaction scan in the
worker, ``scanned_clean``; the runner's snapshot then looks only for its own secrets in it, ``mark_scanned``),
``("error", id, kind, message, status_code, retries, sent)`` (a ``ModelCallError`` by its fields: the
exception itself does not pickle with them) and ``("defect", id, text)`` (anything else the call raised, with
its traceback, redacted). ``spec`` is a ``LiteLLMModel``'s settings (``spec_of``): the name of the variable
that holds its key, never the key (the worker inherits the environment). Both ends are this package's
processes, so pickle is safe here; no frame is logged or written to disk.
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from typing import Any

from .._errors import ModelCallError
from .._litellm import LiteLLMModel

_HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 30

Spec = tuple[Any, ...]


def frame(message: tuple[Any, ...]) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


async def read_frame(reader: asyncio.StreamReader) -> tuple[Any, ...] | None:
    """The next message, or None at a clean end of the stream (the other side closed it)."""
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise
        return None
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ValueError(f"frame of {size} bytes")
    message = pickle.loads(await reader.readexactly(size))
    if not isinstance(message, tuple) or not message:
        raise ValueError(f"not a frame: {type(message).__name__}")
    return message


def spec_of(model: LiteLLMModel) -> Spec:
    """Everything a worker needs to build the same adapter (the key stays in the environment)."""
    return (model.model, model.api_base, model.api_key_env, model.prices, model.max_retries,
            model.backoff_base_s, model.max_backoff_s, model.max_retry_after_s)


def model_of(spec: Spec) -> LiteLLMModel:
    name, api_base, key_env, prices, retries, base_s, max_s, retry_after_s = spec
    return LiteLLMModel(name, api_base=api_base, api_key_env=key_env, prices=prices, max_retries=retries,
                        backoff_base_s=base_s, max_backoff_s=max_s, max_retry_after_s=retry_after_s)


def error_frame(call_id: int, exc: ModelCallError) -> tuple[Any, ...]:
    return ("error", call_id, exc.kind, exc.message, exc.status_code, exc.retries, exc.sent)


def error_of(message: tuple[Any, ...]) -> ModelCallError:
    _, _, kind, text, status_code, retries, sent = message
    return ModelCallError(kind, text, status_code, retries, sent=sent)
