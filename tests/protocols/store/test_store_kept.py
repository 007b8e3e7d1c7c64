"""Kept rows and KV values (E-8, E-10, Q-2): a SqliteStore serves a session's revision, last index and KV
values from what it read or wrote; every read must equal a fresh store's (same file, nothing kept) whatever
happened in between: its own appends, commits (refused ones too), archiving, receipts, and another store's
writes to the same file. A private in-memory database must read as a MemoryStore given the same writes."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocols import KvLimitExceeded, KvLimits, MessageDraft, RevisionConflict, new_run_id
from protocols.store import MemoryStore, SessionStore, SqliteStore

KEYS = ["activeWindow", "window/main", "window/w2", "fold/f1", "fold/f2", "coveredThrough/main", "taskMemory"]
PREFIXES = ["fold/", "window/", "", "nothing/"]
LIMITS = KvLimits(max_keys=5, max_value_bytes=200)
RUN = new_run_id()
RUNS = [RUN, new_run_id()]

_value = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=6),
                   st.lists(st.integers(0, 3), max_size=3),
                   st.dictionaries(st.sampled_from(["status", "goal", "n"]), st.text(max_size=4), max_size=2),
                   st.just("x" * 300))  # over the value limit: the commit is refused
_op = st.one_of(
    st.tuples(st.just("commit"), st.dictionaries(st.sampled_from(KEYS), _value, min_size=1, max_size=3)),
    st.tuples(st.just("stale"), st.dictionaries(st.sampled_from(KEYS), _value, min_size=1, max_size=2)),
    st.tuples(st.just("append"), st.sampled_from(["main", "w2"])),
    st.tuples(st.just("archive"), st.integers(0, 2)),
    st.tuples(st.just("receipt"), st.text(max_size=3)),
    st.tuples(st.just("read"), st.just(0)),
    st.tuples(st.just("mutate"), st.sampled_from(KEYS)),
    st.tuples(st.just("other_commit"), st.dictionaries(st.sampled_from(KEYS), _value, min_size=1, max_size=2)),
    st.tuples(st.just("other_append"), st.just("main")),
    st.tuples(st.just("input"), st.tuples(st.sampled_from(["main", "w2"]), st.sampled_from([0, 1]))),
    st.tuples(st.just("other_input"), st.just(("main", 1))),
    st.tuples(st.just("session"), st.sampled_from(["s1", "s2"])),
)


def _reads(store: SessionStore, sid: str) -> dict[str, Any]:
    many = store.kv_get_many(sid, [*KEYS[::-1], "absent"])  # first: nothing before it asked the file
    last = store.max_index(sid)
    return {"many": many, "revision": store.revision(sid), "max": last,
            "kv": {k: store.kv_get(sid, k) for k in KEYS}, "prefix": {p: store.kv_prefix(sid, p) for p in PREFIXES},
            "inputs": {(run, bound): store.run_inputs(sid, run, bound) for run in RUNS
                       for bound in (last, last - 1, last - 3, last + 1)}}


def _apply(store: SessionStore, sid: str, op: str, arg: Any) -> None:
    if op in ("commit", "other_commit", "stale"):
        try:
            store.commit(sid, store.revision(sid) - (op == "stale"), arg, receipt=None)
        except (KvLimitExceeded, RevisionConflict):
            pass
    elif op in ("append", "other_append"):
        store.append(sid, MessageDraft(run_id=RUN, window_id=arg, role="assistant", kind="text", content="t"))
    elif op in ("input", "other_input"):  # the run's inputs (P-11) are kept for a session only this store wrote
        store.append(sid, MessageDraft(run_id=RUNS[arg[1]], input_run=RUNS[arg[1]], window_id=arg[0], role="user",
                                       kind="input", content=f"i{store.max_index(sid)}"))
    elif op == "archive":
        store.archive(sid, max(0, store.max_index(sid) - arg))
    elif op == "receipt":
        store.put_receipt(sid, f"c{arg}", {"success": True})
    elif op == "mutate":  # a handed-out value is the caller's: changing it changes nothing kept
        value = store.kv_get(sid, arg)
        if isinstance(value, dict):
            value["status"] = "changed"
        elif isinstance(value, list):
            value.append(99)
        for values in [*store.kv_prefix(sid, "").values(), *store.kv_get_many(sid, KEYS).values()]:
            if isinstance(values, dict):
                values.clear()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(_op, min_size=1, max_size=40))
def test_kept_reads_equal_a_fresh_store_of_the_same_file(ops: list[tuple[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with SqliteStore(path, LIMITS) as mine, SqliteStore(path, LIMITS) as other:
            for sid in ("s1", "s2"):
                mine.create_session(sid, {"activeWindow": "main"})
            sid = "s1"
            for op, arg in [*ops, ("read", 0)]:
                if op == "session":
                    sid = arg
                    continue
                _apply(other if op.startswith("other_") else mine, sid, op, arg)
                kept = _reads(mine, sid)
                with SqliteStore(path, LIMITS) as fresh:
                    assert kept == _reads(fresh, sid)
                    other_sid = "s2" if sid == "s1" else "s1"
                    assert _reads(mine, other_sid) == _reads(fresh, other_sid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(_op.filter(lambda o: not o[0].startswith("other_")), min_size=1, max_size=40))
def test_a_private_database_keeps_what_a_memory_store_reads(ops: list[tuple[str, Any]]) -> None:
    with SqliteStore(":memory:", LIMITS) as sqlite:
        memory = MemoryStore(LIMITS)
        for store in (sqlite, memory):
            for sid in ("s1", "s2"):
                store.create_session(sid, {"activeWindow": "main"})
        sid = "s1"
        for op, arg in ops:
            if op == "session":
                sid = arg
                continue
            for store in (sqlite, memory):
                _apply(store, sid, op, arg)
            assert _reads(sqlite, sid) == _reads(memory, sid)
