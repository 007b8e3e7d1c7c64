"""Property tests over random sessions and random tool calls (P-1, P-2, P-22, P-24, P-41, P-42)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from protocols import FrozenView
from protocols.tools import tools_for

if TYPE_CHECKING:
    from conftest import Bench

_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "purpose": st.sampled_from(["p", "p", "p", "p", "p", " "]),
    "windowId": st.sampled_from(["main", "alpha", "beta", "gamma"]),
    "expectedWindowId": st.sampled_from(["@active", "@active", "main", "alpha"]),  # @active: the truth
    "goal": st.sampled_from(["goal", "goal", None]),
    "input": st.sampled_from(["handoff", "handoff", ""]),
    "resume": st.booleans(),
    "memory": st.text(max_size=12),
    "result": st.sampled_from(["done", "完成"]),
    "query": st.sampled_from(["note", "NOTE", "完"]),
    "fromIndex": st.integers(1, 8),
    "throughIndex": st.integers(0, 3),  # an offset from fromIndex, resolved at call time
    "summary": st.text(min_size=1, max_size=8),
    "foldId": st.sampled_from(["f1", "f2", "f3"]),
    "cursor": st.integers(0, 40),
    "afterIndex": st.integers(-1, 14),
    "offset": st.integers(0, 3),
    "limit": st.integers(1, 5),
}
# every argument present except at most two dropped ones: most calls pass the schema, some do not
_ARGS = st.tuples(st.fixed_dictionaries(_VALUES), st.sets(st.sampled_from(sorted(_VALUES)), max_size=2))

_MESSAGE = st.sampled_from(["input", "approval_feedback", "runtime_instruction", "text", "exchange", "dangling"])
_TOOL = st.tuples(st.integers(0, 10), _ARGS, st.sampled_from(["step", "step", "call", "stale", "replay"]))
_FOLD_LISTED = st.tuples(st.just("fold_listed"), st.integers(0, 5), st.integers(0, 2))
_OPS = st.lists(st.one_of(_MESSAGE, _TOOL, _FOLD_LISTED), min_size=4, max_size=24)


def _write_message(bench: Bench, kind: str) -> None:
    if kind in ("input", "approval_feedback", "runtime_instruction"):
        bench.b.user(f"user note {kind} 完", kind=kind)
    elif kind == "text":
        bench.b.text("assistant note 😀")
    elif kind == "exchange":
        bench.b.exchange("lookup", {"q": 1}, {"rows": ["note"]})
    else:
        bench.b.call("slow_tool", {"q": 2})


def _check_folds(bench: Bench) -> None:
    """P-24 per window (docs/design.md, "Folds and other windows"): a window's folds never overlap, and
    a fold stands for exactly its window's messages in its range, other windows' ones left out."""
    folds = sorted((v["windowId"], v["fromIndex"], v["throughIndex"], v)
                   for k, v in bench.kv().items() if k.startswith("fold/"))
    for (w1, _, last, _), (w2, first, _, _) in zip(folds, folds[1:], strict=False):
        assert w1 != w2 or last < first, "folds of one window overlap (P-24)"
    for window, first, last, fold in folds:
        own = bench.store.window_messages(bench.sid, window, first - 1, last)
        assert own and own[0].index == first and own[-1].index == last
        assert [m.id for m in own] == fold["messageIds"], "a fold stands for exactly its window's messages"


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ref=st.sampled_from(["unified@1", "unified@2"]), ops=_OPS)
def test_random_tool_calls_keep_the_protocol_invariants(make_bench: Callable[..., Bench], ref: str,
                                                        ops: list[Any]) -> None:
    bench = make_bench(ref, maxWindows=3, maxFolds=3)
    specs = tools_for(bench.protocol)
    receipts: dict[str, dict[str, Any]] = {}
    for op in ops:
        raw_before = bench.store.all_messages(bench.sid)
        if isinstance(op, str):
            _write_message(bench, op)
        elif op[0] == "fold_listed":  # fold groups exactly as context_history_list lists them (P-23)
            _, pick, extra = op
            listed = bench.call("context_history_list", {"purpose": "p", "limit": 50})["items"]
            if listed:
                first, last = listed[pick % len(listed)], listed[min(pick + extra, len(listed) - 1)]
                args = {"purpose": "p", "fromIndex": first["firstIndex"], "throughIndex": last["lastIndex"],
                        "summary": "s"}
                if bench.protocol.requires_expected_window:
                    args["expectedWindowId"] = bench.active()
                rev, folds = bench.revision(), len(bench.store.kv_prefix(bench.sid, "fold/"))
                result = bench.step("context_fold_create", args)
                event(f"listed fold: {'ok' if result['success'] else result['error'].get('reason')}")
                if result["success"]:
                    assert bench.revision() == rev + 1
                    assert len(bench.store.kv_prefix(bench.sid, "fold/")) == folds + 1
        else:
            tool, (values, dropped), mode = op
            spec = specs[tool]
            allowed = {f.alias for f in spec.args.model_fields.values()} - dropped
            args = {k: v for k, v in values.items() if k in allowed}
            if args.get("expectedWindowId") == "@active":
                args["expectedWindowId"] = bench.active()
            if "throughIndex" in args:
                args["throughIndex"] += args.get("fromIndex", 1)
            rev, kv = bench.revision(), bench.kv()
            if mode == "replay" and receipts:
                call_id = sorted(receipts)[len(args) % len(receipts)]
                assert bench.call(spec.name, args, call_id=call_id) == receipts[call_id]  # P-42
                assert (bench.revision(), bench.kv()) == (rev, kv)
                continue
            if mode == "stale" and rev > 0:
                stale = FrozenView(revision=rev - 1, upper_bound=bench.store.max_index(bench.sid),
                                   run_id=bench.b.run_id)
                result = bench.call(spec.name, args, frozen=stale)
                assert not (spec.writes and result["success"]), "a stale write succeeded (P-41)"
            elif mode == "step":
                result = bench.step(spec.name, args)
            else:
                result = bench.call(spec.name, args)
            call_id = f"{bench.sid}-t{bench._seq}"
            receipts[call_id] = result
            event(f"{spec.name}: {'ok' if result['success'] else result['error']['code']}")
            assert bench.store.receipt(bench.sid, call_id) == result
            if not result["success"] or not spec.writes:  # P-22 and "a refusal changes nothing"
                assert (bench.revision(), bench.kv()) == (rev, kv), result
            else:
                assert bench.revision() == rev + 1
        raw_after = bench.store.all_messages(bench.sid)
        assert raw_after[: len(raw_before)] == raw_before  # P-1: nothing rewritten
        assert [m.index for m in raw_after] == list(range(1, len(raw_after) + 1))  # P-2: gapless
        _check_folds(bench)
    for call_id, result in receipts.items():
        assert bench.call("context_window_list", {"purpose": "other"}, call_id=call_id) == result
