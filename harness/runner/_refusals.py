"""Deterministic refusals are sent once per run (P-80, E-7): the same request is never sent again after
the provider refused it with an error that does not depend on chance.

A provider that answers a request with a 4xx (a validator's 400, a 422) or with a chat template's error
(llama.cpp answers a template's ``raise_exception`` with HTTP 500; ``harness.models`` classifies it as
``provider_rejected``) answers the same request the same way every time. The adapter already never
retries such an attempt, and the gating never starts a new trial for it; this wrapper keeps the *other*
trials of the run from sending it again: every repeat of a group sends the same first request (only its
seed differs, which no validator or template reads), so without it a group whose first request a
template refuses sends it once per repeat.

The key is the request as the cache keys it (``_cache.request_material``) without the seed (``refusal_key``). The first
request of a key is sent alone; identical requests made meanwhile wait for its outcome (a refusal is
raised to them without a call; any other outcome lets them go, each its own sample). A refused request
raises ``ModelCallError`` of the same kind, naming the first refusal, with ``sent=False``: nothing was
sent, so the ledger counts no model call and the report no attempt (the trial still ends as the refusal
it repeats).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import marshal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.models import ChatModel, ModelCallError, ModelOutput, ModelRequest

from ._cache import request_material

_TRANSIENT_4XX = frozenset({408, 409, 425, 429})
"""4xx statuses that say "not now" rather than "never": a timeout, a conflict, too early, a rate limit."""


def deterministic(exc: ModelCallError) -> bool:
    """Whether the same request would be refused again: a provider rejection (4xx, a chat template's
    error), a context that does not fit, or another 4xx the adapter gave up on at once (401, 403, 404)."""
    if exc.kind in ("provider_rejected", "context_window"):
        return True
    status = exc.status_code
    return exc.kind == "infrastructure" and status is not None and 400 <= status < 500 \
        and status not in _TRANSIENT_4XX and not exc.message.startswith("gave up after")


def refusal_key(model: str, api_base: str | None, request: ModelRequest) -> str:
    """SHA-256 of the request's material without its seed: its model, API base and sampling as canonical JSON
    (sorted keys, ``default=str``), its tools' and each message's digest (``_digest``) beside them. Two requests
    get the same key exactly when the canonical JSON of their whole material is the same text: the parts are
    JSON values, so the whole text is the same when and only when each part's is. The parts that recur in
    every call (the tools, the history) are digested once per content (py-spy of Q-3: encoding the whole
    material with sorted keys and hashing it was 4.7 % of the runner's own CPU per call)."""
    material = request_material(model, api_base, request)
    sampling = {k: v for k, v in material["sampling"].items() if k != "seed"}
    parts = [_canonical([material["model"], material["apiBase"], sampling]), _digest(material["tools"]),
             [_digest(message) for message in material["messages"]]]
    return hashlib.sha256(_canonical(parts).encode("utf-8")).hexdigest()


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
"""``json.dumps`` with these options builds this encoder anew at every call (its options are not the defaults);
one kept writes the same text, its ``encode`` keeping no state between calls."""


def _canonical(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)``."""
    return _CANONICAL.encode(value)


_DIGESTS: dict[Any, str] = {}
_MAX_DIGESTS = 16384


def _digest(value: Any) -> str:
    """SHA-256 of ``value``'s canonical JSON, kept by content: a dict of text values by its items (exact ``str``
    keys and ``str`` or None values: equal items, equal text), anything else by its ``marshal`` bytes (exact
    types only, so equal bytes are equal values of the same types; two equal values written differently are
    only two entries). A value marshal refuses (a subclass, an object) is encoded every time."""
    if type(value) is dict and all([type(k) is str and (v is None or type(v) is str) for k, v in value.items()]):
        key: Any = tuple(value.items())
    else:
        try:
            key = marshal.dumps(value)
        except ValueError:
            return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()
    digest = _DIGESTS.get(key)
    if digest is None:
        if len(_DIGESTS) >= _MAX_DIGESTS:  # the oldest goes first
            del _DIGESTS[next(iter(_DIGESTS))]
        digest = _DIGESTS[key] = hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()
    return digest


@dataclass
class RefusalMemo:
    """The run's deterministic refusals by request key, and the first calls still in flight."""

    refused: dict[str, ModelCallError] = field(default_factory=dict)
    pending: dict[str, asyncio.Event] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    spared: int = 0
    """Requests not sent because an identical one had been refused."""

    def wrap(self, factory: Callable[..., ChatModel]) -> Callable[..., ChatModel]:
        """A model factory whose models consult this memo (``Settings.model_factory`` shape)."""

        def make(model: str, *args: Any, api_base: str | None = None, **kwargs: Any) -> ChatModel:
            return RefusalGuardedModel(factory(model, *args, api_base=api_base, **kwargs), self, model, api_base)

        return make


class RefusalGuardedModel:
    """A ``ChatModel`` that never sends a request the provider already refused deterministically."""

    def __init__(self, inner: ChatModel, memo: RefusalMemo, model: str, api_base: str | None) -> None:
        self.inner, self.memo, self.model, self.api_base = inner, memo, model, api_base

    def __repr__(self) -> str:
        return f"RefusalGuardedModel({self.inner!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        memo = self.memo
        key = refusal_key(self.model, self.api_base, request)
        while key not in memo.answered:
            self._raise_if_refused(key)
            waiting = memo.pending.get(key)
            if waiting is None:
                return await self._first(key, request)
            await waiting.wait()  # the first identical request is in flight: its outcome decides
        return await self.inner.generate(request)

    async def _first(self, key: str, request: ModelRequest) -> ModelOutput:
        """Send the first request of ``key``; a deterministic refusal is kept for every later one."""
        memo = self.memo
        memo.pending[key] = event = asyncio.Event()
        try:
            output = await self.inner.generate(request)
        except ModelCallError as exc:
            if deterministic(exc):
                memo.refused[key] = exc
            else:
                memo.answered.add(key)  # a transient failure: the others may try
            raise
        finally:
            del memo.pending[key]
            event.set()
        memo.answered.add(key)
        return output

    def _raise_if_refused(self, key: str) -> None:
        first = self.memo.refused.get(key)
        if first is None:
            return
        self.memo.spared += 1
        status = f"HTTP {first.status_code} " if first.status_code is not None else ""
        raise ModelCallError(first.kind, "not sent: the provider refused this same request (but for its seed) "
                                         f"earlier in this run, {status}deterministically: {first.message}",
                             first.status_code, sent=False)
