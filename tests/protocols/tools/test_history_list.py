"""``context_history_list``: the active window's uncompressed history as complete groups (P-21, P-23)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocols import FrozenView, utf16_len

if TYPE_CHECKING:
    from conftest import Bench


def _list(bench: Bench, **args: object) -> dict:
    return bench.ok(bench.call("context_history_list", {"purpose": "p", **args}))


def test_groups_carry_real_indexes_ids_kinds_and_foldability(bench: Bench) -> None:
    bench.b.user("quote please")
    bench.b.exchange("price_lookup", {"sku": "A"}, {"price": 3})
    bench.b.text("done")
    items = _list(bench)["items"]
    assert [(i["firstIndex"], i["lastIndex"], i["foldable"], i["reason"]) for i in items] == [
        (1, 1, False, "user_input"), (2, 3, True, None), (4, 4, True, None)]
    assert items[1]["messageIds"] == ["m2", "m3"]
    assert items[1]["kinds"] == ["assistant/tool_call", "tool/tool_result"]
    assert "price_lookup" in items[1]["preview"] and '"price": 3' in items[1]["preview"]


def test_preview_is_at_most_200_utf16_units(bench: Bench) -> None:
    bench.b.text("🚀" * 500)
    bench.b.text("short")
    first, second = _list(bench)["items"]
    assert utf16_len(first["preview"]) <= 200 and first["preview"].endswith("…")
    assert first["preview"].encode("utf-16-le")  # no lone surrogate
    assert second["preview"] == "short"


def test_existing_fold_is_one_item_with_its_fold_id(bench: Bench) -> None:
    for i in range(1, 6):
        bench.b.text(f"note {i}")
    bench.ok(bench.call("context_fold_create", {"purpose": "p", "fromIndex": 2, "throughIndex": 4,
                                                "summary": "notes two to four"}))
    items = _list(bench)["items"]
    assert [(i.get("foldId"), i["firstIndex"], i["lastIndex"]) for i in items] == [
        (None, 1, 1), ("f1", 2, 4), (None, 5, 5)]
    assert items[1]["messageIds"] == ["m2", "m3", "m4"] and items[1]["foldable"] is False
    assert items[1]["preview"] == "notes two to four"


def test_only_the_active_windows_uncompressed_history_up_to_the_bound(bench: Bench) -> None:
    bench.b.text("covered")
    bench.b.text("kept")
    bench.b.window = "beta"
    bench.b.text("other window")
    bench.b.window = "main"
    bench.b.text("late")
    bench.store.commit(bench.sid, 0, {"coveredThrough/main": 1})
    r = _list(bench)
    assert [i["firstIndex"] for i in r["items"]] == [2, 4] and r["coveredThrough"] == 1
    early = FrozenView(revision=1, upper_bound=3, run_id=bench.b.run_id)
    r = bench.ok(bench.call("context_history_list", {"purpose": "p"}, frozen=early))
    assert [i["firstIndex"] for i in r["items"]] == [2]


def test_pages_with_next_after_index(bench: Bench) -> None:
    bench.b.text("a")
    bench.b.exchange("t", {}, {"ok": 1})
    bench.b.text("b")
    bench.b.text("c")
    r = _list(bench, limit=2)
    assert [i["firstIndex"] for i in r["items"]] == [1, 2] and r["nextAfterIndex"] == 3
    r = _list(bench, limit=2, afterIndex=r["nextAfterIndex"])
    assert [i["firstIndex"] for i in r["items"]] == [4, 5] and r["nextAfterIndex"] is None


def test_incomplete_and_unpaired_groups_name_their_reason(bench: Bench) -> None:
    bench.b.result("ghost", "orphan")
    bench.b.call("slow", {}, call_id="open")
    reasons = [(i["firstIndex"], i["reason"]) for i in _list(bench)["items"]]
    assert reasons == [(1, "unpaired_call"), (2, "incomplete_group")]
