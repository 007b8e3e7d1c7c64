"""Issue 3, must show 1: one session state rendered under every protocol, kept as golden files.

The state: quote done in window alpha, schedule done in beta, then alpha resumed from beta
(tests/protocols/data/resume_alpha.json). Set UPDATE_GOLDEN=1 to rewrite the golden files after an
intended change, and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from protocols import read_state_file, resolve_ref
from protocols._derived import STATE_LEAD, STATE_VIEW_V3
from protocols.store import MemoryStore, SessionStore, SqliteStore

DATA = Path(__file__).parent / "data" / "resume_alpha.json"
GOLDEN = Path(__file__).parent / "golden"

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "prefix@2": ("prefix@2", {}),
    "unified@1": ("unified@1", {}),
    "unified@2": ("unified@2", {}),
    "unified@3-A": ("unified@3", {"stateMessagePlacement": "trailing_assistant"}),
    "unified@3-B": ("unified@3", {"stateMessagePlacement": "before_history_assistant"}),
    "unified@3-C": ("unified@3", {"stateMessagePlacement": "trailing_user"}),
}


def render(variant: str, store: SessionStore | None = None) -> dict[str, Any]:
    ref, options = VARIANTS[variant]
    loaded = read_state_file(DATA, store)
    request = resolve_ref(ref, options).project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    return request.wire()


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_render_matches_golden_file(variant: str) -> None:
    """P-20: the same state renders byte-identically; the golden file is the reviewed render."""
    path = GOLDEN / f"resume_alpha.{variant}.json"
    text = dumps(render(variant))
    if os.environ.get("UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
        if os.environ.get("UPDATE_GOLDEN") != "1":
            pytest.fail(f"golden file {path.name} was missing and has been written; review and commit it")
    assert text == path.read_text(encoding="utf-8")


def _without_state(render_: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    pairs = [(m, s) for m, s in zip(render_["messages"], render_["sources"], strict=True)
             if s["type"] != "context_state"]
    return [m for m, _ in pairs], [s for _, s in pairs]


def _state(render_: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    found = [(i, m) for i, (m, s) in enumerate(zip(render_["messages"], render_["sources"], strict=True))
             if s["type"] == "context_state"]
    assert len(found) == 1, "exactly one context_state message"
    return found[0]


def test_placements_differ_only_in_position_and_role_of_the_state_message() -> None:
    """P-80, P-82: A, B and C share everything but the position and role of context_state."""
    a, b, c = (render(f"unified@3-{g}") for g in "ABC")
    assert _without_state(a) == _without_state(b) == _without_state(c)
    assert a["tools"] == b["tools"] == c["tools"]
    (ia, sa), (ib, sb), (ic, sc) = _state(a), _state(b), _state(c)
    assert sa["content"] == sb["content"] == sc["content"]
    assert (ia, sa["role"]) == (len(a["messages"]) - 1, "assistant")  # A: trailing assistant
    assert (ib, sb["role"]) == (2, "assistant")  # B: right after system and header, before history
    assert (ic, sc["role"]) == (len(c["messages"]) - 1, "user")  # C: trailing user
    assert [s["type"] for s in b["sources"][:3]] == ["system", "context_header", "context_state"]


def test_v2_and_placement_a_differ_only_in_prompt_wording_and_v3_state_sentence() -> None:
    """P-82 and the source (unified@3): A is v2's mapping with the prompt's positional qualifiers
    removed, and with v3's view sentence in the state text; nothing else differs."""
    v2, a = render("unified@2"), render("unified@3-A")
    assert v2["sources"] == a["sources"]
    assert v2["tools"] == a["tools"]
    (i2, s2), (ia, sa) = _state(v2), _state(a)
    assert i2 == ia and s2["role"] == sa["role"] == "assistant"
    assert sa["content"] == s2["content"].replace(STATE_LEAD, STATE_LEAD + STATE_VIEW_V3, 1)
    assert [m for i, m in enumerate(v2["messages"]) if i not in (0, i2)] == \
        [m for i, m in enumerate(a["messages"]) if i not in (0, ia)]
    assert v2["messages"][0]["role"] == a["messages"][0]["role"] == "system"
    assert v2["messages"][0]["content"] != a["messages"][0]["content"]  # word by word: test_prompt_claims.py


def test_state_message_names_the_resumed_window_and_its_entry() -> None:
    """P-71, P-72: the state says where execution stands, from currentWindowEntry and the frozen KV."""
    _, state = _state(render("unified@3-A"))
    body = json.loads(state["content"].split("\n", 1)[1])
    assert body == {
        "windowId": "alpha", "status": "active", "revision": 5, "enteredFrom": "beta",
        "enteredAtUpperBound": 17, "handoffInput": "beta排期已完成；只核对alpha检查点，不覆写报价，随后汇报。",
        "coveredThrough": 0, "toolResultsSinceEntry": 0, "recentTool": None,
    }


def test_prefix_and_v1_have_no_state_message() -> None:
    """P-90, P-71: only v2 and v3 derive a context_state message."""
    for variant in ("prefix@2", "unified@1"):
        assert all(s["type"] != "context_state" for s in render(variant)["sources"])


def test_prefix_view_is_main_history_plus_protected_input() -> None:
    """P-90, P-11: prefix@2 shows one history (main) and the current run's input wherever it was written."""
    out = render("prefix@2")
    assert out["tools"] == []
    raw_ids = [s["messageIds"][0] for s in out["sources"] if s["type"] == "raw"]
    assert raw_ids == ["m1", "m2", "m3", "m17"]


def test_window_switch_stays_in_the_window_that_was_left() -> None:
    """P-44, P-4: alpha's view ends its own history with the old 'open beta' call and result."""
    out = render("unified@1")
    raw_ids = [s["messageIds"][0] for s in out["sources"] if s["type"] == "raw"]
    assert raw_ids == ["m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11", "m17"]


def test_renders_are_identical_from_both_backends() -> None:
    """P-20, E-8: the same state renders byte-identically from the in-memory and SQLite stores."""
    for variant in VARIANTS:
        assert dumps(render(variant, MemoryStore())) == dumps(render(variant, SqliteStore()))
