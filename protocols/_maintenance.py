"""Per-window prefix compression by the host's context maintainer (P-50 … P-55, E-13).

One maintenance of window ``w``:

1. freeze the parent KV revision, the upper bound, and the window's uncovered messages
   (``coveredThrough/<w> < index ≤ upperBound``);
2. choose the boundary (P-53): the end of an interaction group, leaving the most recent
   ``keep_recent_groups`` groups uncovered, never inside a group still waiting for results and
   never inside one of the window's folds (moved back before the fold's ``fromIndex``);
3. hash the range's raw content (sha256 of the canonical JSON of its wire messages, P-52);
4. page through the range's *raw* messages (``pageSize`` a page, P-51), each page's answer being
   the previous checkpoint of the next; before each page the revision and the page's content are
   checked against the frozen ones;
5. commit ``checkpoint/<w>`` and ``coveredThrough/<w>`` in one transaction on the frozen revision
   after re-checking the range hash. Any change → ``rejected`` / ``maintenance_state_changed`` and
   nothing is written.

Folds wholly at or below the new ``coveredThrough`` are compressed from then on (P-54): that is
derived from ``coveredThrough`` alone, so their records are left as they are and read-back works.

The host runs it automatically (threshold, P-50) or after a stage; an agent bound to the maintainer
(``MaintainerBinding``) runs it through ``context_compress`` with that call's frozen upper bound,
and its receipt commits in the same transaction as the checkpoint (``receipt``, P-42).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import Field, ValidationError

from ._errors import InvalidInput, KvLimitExceeded, RevisionConflict
from ._groups import interaction_groups
from ._messages import RawMessage, WireModel
from ._state import MAIN_WINDOW, Checkpoint, Fold, Record, checkpoint_key, covered_key
from ._text import canonical_json, sha256_hex, utf16_len, utf16_truncate
from ._version import ProtocolVersion
from .store import SessionStore

STATE_CHANGED = "maintenance_state_changed"
R = TypeVar("R", bound=Record)


class MaintenanceRequest(WireModel):
    """What the maintainer model is asked for one page (P-51)."""

    window_id: str
    previous_checkpoint: str | None
    messages: tuple[RawMessage, ...]
    page: int = Field(ge=1)
    page_count: int = Field(ge=1)
    max_characters: int = Field(ge=1)


Maintainer = Callable[[MaintenanceRequest], Awaitable[str]]
"""The maintainer role (E-13): one request per page, the new checkpoint text as the answer."""


@dataclass(frozen=True)
class MaintainerBinding:
    """The agent is bound to the host's context maintainer (source: 若 Agent 绑定了 context-maintainer):
    ``context_compress`` is offered and runs ``maintainer`` with the host's ``keep_recent_groups``."""

    maintainer: Maintainer
    keep_recent_groups: int = 4


class MaintenanceResult(WireModel):
    status: Literal["compressed", "nothing_to_do", "rejected"]
    reason: str | None = None
    """``maintenance_state_changed`` or ``kv_limit_exceeded`` (rejected); ``no_uncovered_history`` or
    ``no_boundary`` (nothing to do)."""
    window_id: str
    from_index: int | None = None
    through_index: int | None = None
    """The new ``coveredThrough`` (compressed) or the boundary that was attempted (rejected)."""
    pages: int = 0
    checkpoint_length: int | None = None
    """UTF-16 units of the committed checkpoint."""
    truncated: bool = False
    """A maintainer answer was longer than ``checkpointMaxCharacters`` and was cut to it."""
    compressed_folds: tuple[str, ...] = ()
    revision: int
    """The KV revision after this maintenance (the new one when compressed)."""


def _record(model: type[R], key: str, value: object) -> R:
    """A KV value read as its record; a malformed one (say from a state file) is the caller's input."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise InvalidInput(f"KV {key} is not a valid record: {exc.errors()[0]['msg']}") from None


def should_maintain(input_tokens: int, threshold: int | None) -> bool:
    """P-50: compress once the last step's real input tokens reach the threshold (``None`` = never)."""
    return threshold is not None and input_tokens >= threshold


def window_folds(store: SessionStore, session_id: str, window_id: str) -> dict[str, Fold]:
    """The folds of one window by fold id."""
    folds = {}
    for key, value in store.kv_prefix(session_id, "fold/").items():
        fold = _record(Fold, key, value)
        if fold.window_id == window_id:
            folds[key.removeprefix("fold/")] = fold
    return folds


def choose_boundary(messages: Sequence[RawMessage], folds: Sequence[Fold], keep_recent_groups: int) -> int | None:
    """The last index maintenance may cover among ``messages`` (one window, uncovered, by index), or
    ``None`` when nothing may be covered (P-53)."""
    groups = interaction_groups(messages)
    candidates = groups[: max(0, len(groups) - keep_recent_groups)]
    for pos, group in enumerate(candidates):
        if group.reason == "incomplete_group":  # calls still waiting for their results
            candidates = candidates[:pos]
            break
    for group in reversed(candidates):
        boundary = group.last_index
        if not any(f.from_index <= boundary < f.through_index for f in folds):
            return boundary
    return None


def source_hash(messages: Sequence[RawMessage]) -> str:
    """P-52: the hash of a range's raw content."""
    return sha256_hex(canonical_json([m.wire() for m in messages]))


def _same_range(read: Sequence[RawMessage], frozen: Sequence[RawMessage], frozen_hash: str | None = None) -> bool:
    """Whether a range read again has the frozen range's content (P-52): the same message objects have it
    (a stored message is immutable, P-1, and a store hands the objects it keeps, Q-2); other objects are
    compared by ``source_hash``, against ``frozen_hash`` when the caller has it."""
    if len(read) == len(frozen) and all([a is b for a, b in zip(read, frozen, strict=True)]):
        return True
    return source_hash(read) == (frozen_hash or source_hash(frozen))


Receipt = tuple[str, Callable[[MaintenanceResult], dict[str, Any]]]
"""(call id, the call's result for a maintenance outcome): committed with the checkpoint (P-42)."""


async def maintain_window(
    protocol: ProtocolVersion,
    store: SessionStore,
    session_id: str,
    window_id: str,
    maintainer: Maintainer,
    *,
    keep_recent_groups: int = 4,
    upper_bound: int | None = None,
    receipt: Receipt | None = None,
) -> MaintenanceResult:
    """Compress one window's prefix into its checkpoint (P-50 … P-54); see the module docstring.

    With ``receipt`` the call's result is stored in the commit's transaction when compressed; any
    other outcome stores nothing (the caller stores that receipt)."""
    if not protocol.has_windows and window_id != MAIN_WINDOW:
        raise InvalidInput(f"{protocol.key} has one history, {MAIN_WINDOW!r}; there is no window {window_id!r}")
    if keep_recent_groups < 0:
        raise InvalidInput("keep_recent_groups must be ≥ 0")

    # 1. freeze
    revision = store.revision(session_id)
    upper = store.max_index(session_id) if upper_bound is None else upper_bound
    covered = int(store.kv_get(session_id, covered_key(window_id)) or 0)
    key = checkpoint_key(window_id)
    previous = store.kv_get(session_id, key)
    summary: str | None = _record(Checkpoint, key, previous).summary if previous is not None else None
    folds = window_folds(store, session_id, window_id)

    def outcome(status: Literal["compressed", "nothing_to_do", "rejected"], reason: str | None,
                **fields: object) -> MaintenanceResult:
        return MaintenanceResult.model_validate({
            "status": status, "reason": reason, "window_id": window_id,
            "revision": store.revision(session_id), **fields})

    uncovered = store.window_messages(session_id, window_id, covered, upper)
    if not uncovered:
        return outcome("nothing_to_do", "no_uncovered_history")
    boundary = choose_boundary(uncovered, list(folds.values()), keep_recent_groups)
    if boundary is None:
        return outcome("nothing_to_do", "no_boundary")

    # 2.–3. the range and its hash
    source = [m for m in uncovered if m.index <= boundary]
    frozen_hash = source_hash(source)
    page_size = int(protocol.options.pageSize)
    pages = [source[i : i + page_size] for i in range(0, len(source), page_size)]
    span = {"from_index": source[0].index, "through_index": boundary}
    max_chars = int(protocol.options.checkpointMaxCharacters)

    def changed(pages_done: int) -> MaintenanceResult:
        return outcome("rejected", STATE_CHANGED, pages=pages_done, **span)

    # 4. page by page, each page read re-checked against the frozen state
    truncated = False
    after = covered
    for number, frozen_page in enumerate(pages, start=1):
        if store.revision(session_id) != revision:
            return changed(number - 1)
        page = store.window_messages(session_id, window_id, after, boundary, limit=page_size)
        if not _same_range(page, frozen_page):
            return changed(number - 1)
        after = page[-1].index
        request = MaintenanceRequest(window_id=window_id, previous_checkpoint=summary, messages=tuple(page),
                                     page=number, page_count=len(pages), max_characters=max_chars)
        answer = await maintainer(request)
        if not isinstance(answer, str):
            raise TypeError(f"the maintainer must answer with text, not {type(answer).__name__}")
        if utf16_len(answer) > max_chars:
            answer, truncated = utf16_truncate(answer, max_chars), True
        summary = answer

    # 5. commit on the frozen revision, only if the range is still what was read
    assert summary is not None and boundary > covered  # P-9: coveredThrough only grows
    if store.revision(session_id) != revision or not _same_range(
        store.window_messages(session_id, window_id, covered, boundary), source, frozen_hash
    ):
        return changed(len(pages))
    checkpoint = Checkpoint(summary=summary, covered_through=boundary, source_hash=frozen_hash, revision=revision)
    newly = tuple(fid for fid, f in folds.items() if covered < f.through_index <= boundary)
    done = MaintenanceResult(
        status="compressed", window_id=window_id, from_index=source[0].index, through_index=boundary,
        pages=len(pages), checkpoint_length=utf16_len(summary), truncated=truncated,
        compressed_folds=newly, revision=revision + 1,  # a commit is revision+1 (SessionStore.commit)
    )
    try:
        store.commit(session_id, revision, {key: checkpoint.wire(), covered_key(window_id): boundary},
                     receipt=None if receipt is None else (receipt[0], receipt[1](done)))
    except RevisionConflict:
        return changed(len(pages))
    except KvLimitExceeded:
        return outcome("rejected", "kv_limit_exceeded", pages=len(pages), **span)
    return done
