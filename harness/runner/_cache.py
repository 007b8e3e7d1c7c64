"""The opt-in response cache (``harness run --cache DIR``): re-running a plan after a harness change
costs nothing when the model is asked exactly what it was asked before.

A response is keyed by the exact request: the model string, the API base (credentials stripped),
the messages, the tools, the sampling parameters (output cap, temperature, top_p, seed, and every
extra parameter), the trial's repeat index and the n-th occurrence of that same request
within the trial. The repeat index keeps repeats distinct samples (a temperature > 0 run served
from the cache replays each repeat's own response, never one response for all repeats).

A served response is marked (``ModelOutput.cache_key``): the engine's snapshot, the call's row in
metrics.duckdb and calls.jsonl say so, the budget never counts it as spent (no tokens, no USD, no
model call) and the report says how many responses came from the cache. Only successful responses
are stored. Nothing secret is ever written: the key material holds no key, and every entry is
redacted before it is written (O-30).

Layout: ``DIR/<key[:2]>/<key>.json``, one JSON object per response, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import harness
from harness.models import ChatModel, ModelOutput, ModelRequest, cap_output, public_api_base, redact, secrets_from_env

from ._storage import StorageError, storage_problem

CACHE_SCHEMA = 1
CACHE_FOLDER = "the response cache"
"""How a ``StorageError`` names the cache folder."""


@dataclass
class CacheScope:
    """The trial a model call belongs to: its repeat index, and how often each request was seen."""

    repeat: int
    seen: dict[str, int] = field(default_factory=dict)

    def occurrence(self, digest: str) -> int:
        n = self.seen.get(digest, 0)
        self.seen[digest] = n + 1
        return n


_SCOPE: ContextVar[CacheScope | None] = ContextVar("harness_cache_scope", default=None)


def enter_trial(repeat: int) -> None:
    """Called at the start of every trial (each runs in its own asyncio task, so scopes never mix)."""
    _SCOPE.set(CacheScope(repeat))


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_material(model: str, api_base: str | None, request: ModelRequest) -> dict[str, Any]:
    """Everything about a request that can change the response (the timeout cannot)."""
    sampling = {"maxOutputTokens": request.max_output_tokens, "temperature": request.temperature, **request.extra}
    # top_p and seed only when set, so the keys of responses cached before they existed still match
    sampling |= {k: v for k, v in (("topP", request.top_p), ("seed", request.seed)) if v is not None}
    return {"model": model, "apiBase": public_api_base(api_base), "messages": request.messages,
            "tools": request.tools, "sampling": sampling}


@dataclass
class ResponseCache:
    """A directory of responses; ``hits`` and ``stored`` count this process's use of it."""

    root: Path
    hits: int = 0
    stored: int = 0

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelOutput | None:
        """The stored response for ``key``, marked as served from the cache; None when absent or unreadable."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
            output = ModelOutput.model_validate(entry["output"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None  # a missing, torn or foreign file is a miss: the call is made live and stored again
        self.hits += 1
        return output.model_copy(update={"cache_key": key, "usd": 0.0, "price_known": True, "latency_ms": 0.0,
                                         "retries": []})

    def put(self, key: str, material: dict[str, Any], output: ModelOutput) -> None:
        # the provider body decoded, under ``provider_request``, as entries have always held it (``get`` reads both)
        dumped = {("provider_request" if k == "provider_request_json" else k):
                  (output.provider_request if k == "provider_request_json" else v)
                  for k, v in output.model_dump(mode="json", exclude={"cache_key"}).items()}
        entry = {"schemaVersion": CACHE_SCHEMA, "key": key, "harnessVersion": harness.__version__,
                 "storedAt": datetime.now(UTC).isoformat(timespec="seconds"), "request": material, "output": dumped}
        text = json.dumps(redact(entry, secrets_from_env()), ensure_ascii=False, indent=1)
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".entry-", suffix=".json", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:  # a full or read-only cache folder: named, the run stops (``_storage``)
            if storage_problem(exc):
                raise StorageError(self.root, exc, CACHE_FOLDER) from None
            raise
        self.stored += 1


def check_cache(root: Path) -> None:
    """Before any model call: ``root`` is a folder the run can write entries into (made when missing).
    A file in the way, a read-only or full folder raises ``StorageError`` naming it (exit 2, nothing ran);
    found only at the first ``put`` it would stop the run half-way."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=root)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        if storage_problem(exc):
            raise StorageError(root, exc, CACHE_FOLDER) from None
        raise


class CachedModel:
    """A ``ChatModel`` that answers from the cache when it can and stores what the inner model says."""

    def __init__(self, inner: ChatModel, cache: ResponseCache, model: str, api_base: str | None) -> None:
        self.inner, self.cache, self.model, self.api_base = inner, cache, model, api_base

    def __repr__(self) -> str:
        return f"CachedModel({self.inner!r}, cache={str(self.cache.root)!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        scope = _SCOPE.get()
        material = request_material(self.model, self.api_base, request)
        occurrence = scope.occurrence(_digest(material)) if scope is not None else 0
        material = {**material, "repeat": scope.repeat if scope is not None else 0, "occurrence": occurrence}
        key = _digest(material)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        output = cap_output(await self.inner.generate(request))  # never store more than the run keeps
        self.cache.put(key, material, output)
        return output


def cached_factory(factory: Callable[..., ChatModel], cache: ResponseCache) -> Callable[..., ChatModel]:
    """Wrap a model factory (``Settings.model_factory``) so every model it makes uses ``cache``."""

    def make(model: str, *args: Any, api_base: str | None = None, **kwargs: Any) -> ChatModel:
        return CachedModel(factory(model, *args, api_base=api_base, **kwargs), cache, model, api_base)

    return make
