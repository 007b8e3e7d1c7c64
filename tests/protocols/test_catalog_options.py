"""Catalog, options and prompts (P-60 … P-63, P-70, P-81, P-82)."""

from __future__ import annotations

import pytest

from protocols import CATALOG, OptionsError, describe_catalog, resolve, resolve_ref

V2_POSITIONAL = ["final context_state", "above it are history"]


def test_p60_catalog_lists_the_four_protocols() -> None:
    """P-60: selection by id, version and options; the catalog lists all four."""
    assert list(CATALOG) == ["prefix@2", "unified@1", "unified@2", "unified@3"]
    entries = {e["protocol"]: e for e in describe_catalog()}
    assert entries["prefix@2"]["tools"] == []
    assert "context_fold_read" in entries["unified@1"]["tools"]
    assert entries["unified@2"]["tools"] == entries["unified@3"]["tools"] == entries["unified@1"]["tools"]


@pytest.mark.parametrize(("ref", "checkpoint"), [("unified@1", 12000), ("unified@2", 3000), ("unified@3", 3000)])
def test_p61_empty_options_give_each_versions_defaults(ref: str, checkpoint: int) -> None:
    """P-61: {} means this version's defaults."""
    opts = resolve_ref(ref, {}).resolved_options
    assert opts["checkpointMaxCharacters"] == checkpoint
    assert (opts["guiProjection"], opts["pageSize"], opts["maxWindows"], opts["maxFolds"]) == (True, 200, 128, 1024)
    if ref == "unified@3":
        assert opts["stateMessagePlacement"] == "trailing_assistant"


@pytest.mark.parametrize("value", [999, 24001, 0, -5])
def test_p61_checkpoint_budget_outside_range_is_refused(value: int) -> None:
    """P-61: checkpointMaxCharacters must lie in 1000–24000."""
    with pytest.raises(OptionsError, match="checkpointMaxCharacters"):
        resolve("unified", 2, {"checkpointMaxCharacters": value})
    assert resolve("unified", 2, {"checkpointMaxCharacters": 1000}).resolved_options["checkpointMaxCharacters"] == 1000


@pytest.mark.parametrize("version", [1, 2])
def test_p81_placement_option_refused_on_v1_and_v2(version: int) -> None:
    """P-80, P-81: stateMessagePlacement exists only on unified@3."""
    with pytest.raises(OptionsError, match=f"stateMessagePlacement: unknown option for unified@{version}"):
        resolve("unified", version, {"stateMessagePlacement": "trailing_user"})


@pytest.mark.parametrize("value", ["system", "trailing_system", "user", "assistant", "", None, 3])
def test_p81_only_three_placements_exist(value: object) -> None:
    """P-81: no other value (no arbitrary role, never system)."""
    with pytest.raises(OptionsError, match="stateMessagePlacement"):
        resolve("unified", 3, {"stateMessagePlacement": value})


def test_p61_unknown_keys_and_unknown_protocols_are_named() -> None:
    with pytest.raises(OptionsError, match="pagesize: unknown option"):
        resolve("unified", 1, {"pagesize": 10})
    with pytest.raises(OptionsError, match="unknown protocol 'unified@9'"):
        resolve("unified", 9, {})
    with pytest.raises(OptionsError, match="<id>@<version>"):
        resolve_ref("unified-3")


def test_p82_v3_prompt_is_identical_across_placements_and_position_neutral() -> None:
    """P-82: one prompt for A, B and C, without v2's positional wording."""
    prompts = {p: resolve("unified", 3, {"stateMessagePlacement": p}).prompt()
               for p in ("trailing_assistant", "before_history_assistant", "trailing_user")}
    assert len(set(prompts.values())) == 1
    v3 = next(iter(prompts.values()))
    for phrase in V2_POSITIONAL:
        assert phrase not in v3
    assert "final" not in v3.lower() and "trailing" not in v3.lower() and "above" not in v3.lower()


def test_p70_v2_prompt_is_one_decision_prompt_with_positional_wording() -> None:
    """P-70: v2 states that the final context_state gives the position and the messages above are history."""
    v2 = resolve("unified", 2, {}).prompt()
    for phrase in V2_POSITIONAL:
        assert phrase in v2
    assert "not a fixed sequence" in v2 and "answer directly" in v2
    v1 = resolve("unified", 1, {}).prompt()
    assert v1.count("### ") == 3  # v1: three concatenated feature sections


def test_p63_no_cache_push_pop_or_monitoring_tools() -> None:
    """P-63, P-28: no task-result cache, push/pop, monitoring, experience library, or unfold tool."""
    for entry in describe_catalog():
        for name in entry["tools"]:
            assert not any(w in name for w in ("cache", "push", "pop", "monitor", "experience", "unfold", "cancel"))
