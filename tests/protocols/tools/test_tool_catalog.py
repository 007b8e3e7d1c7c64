"""The tool catalog and its schemas (the two tool tables, P-73, P-90)."""

from __future__ import annotations

import pytest

from protocols import resolve_ref
from protocols.tools import tool_named, tool_schemas, tools_for

REUSED = ["context_window_open", "context_window_memory_set", "context_window_complete",
          "context_window_list", "context_window_search", "context_window_read", "context_task_memory_set"]
NEW_V1 = ["context_history_list", "context_fold_create", "context_fold_list", "context_fold_read"]
WRITES_WITH_EXPECTATION = ["context_window_open", "context_window_memory_set", "context_window_complete",
                           "context_fold_create"]


def _params(ref: str) -> dict[str, dict]:
    return {s["function"]["name"]: s["function"]["parameters"] for s in tool_schemas(resolve_ref(ref))}


def test_p90_prefix_offers_no_context_tools() -> None:
    assert tools_for(resolve_ref("prefix@2")) == []
    assert tool_schemas(resolve_ref("prefix@2")) == []


@pytest.mark.parametrize("ref", ["unified@1", "unified@2", "unified@3"])
def test_unified_offers_reused_then_new_tools_in_catalog_order(ref: str) -> None:
    assert [t.name for t in tools_for(resolve_ref(ref))] == REUSED + NEW_V1
    assert resolve_ref(ref).tool_names() == REUSED + NEW_V1


@pytest.mark.parametrize("ref", ["unified@1", "unified@2", "unified@3"])
def test_every_tool_requires_non_empty_purpose_and_forbids_extra_keys(ref: str) -> None:
    for schema in tool_schemas(resolve_ref(ref)):
        assert schema["type"] == "function"
        fn = schema["function"]
        assert fn["description"]
        params = fn["parameters"]
        assert params["type"] == "object"
        assert "purpose" in params["required"], fn["name"]
        assert params["properties"]["purpose"]["minLength"] == 1
        assert params["additionalProperties"] is False  # P-40: no revision/upperBound/sessionId


def test_p73_v1_has_no_expected_window_id() -> None:
    for name, params in _params("unified@1").items():
        assert "expectedWindowId" not in params["properties"], name
    assert "input" not in _params("unified@1")["context_window_open"]["required"]


@pytest.mark.parametrize("ref", ["unified@2", "unified@3"])
def test_p73_v2_v3_require_expected_window_id_on_the_four_write_tools(ref: str) -> None:
    params = _params(ref)
    for name in WRITES_WITH_EXPECTATION:
        assert "expectedWindowId" in params[name]["required"], name
    for name in set(params) - set(WRITES_WITH_EXPECTATION):
        assert "expectedWindowId" not in params[name]["properties"], name
    assert "input" in params["context_window_open"]["required"]
    assert params["context_window_open"]["properties"]["input"]["minLength"] == 1


def test_p82_v3_groups_share_v2_tool_schema() -> None:
    v2 = tool_schemas(resolve_ref("unified@2"))
    for placement in ("trailing_assistant", "before_history_assistant", "trailing_user"):
        assert tool_schemas(resolve_ref("unified@3", {"stateMessagePlacement": placement})) == v2


def test_page_limits_are_capped_at_50() -> None:
    params = _params("unified@1")
    for name in ("context_window_list", "context_window_search", "context_window_read",
                 "context_history_list", "context_fold_list"):
        assert params[name]["properties"]["limit"] == {"default": 20, "maximum": 50, "minimum": 1,
                                                       "type": "integer"}, name


@pytest.mark.parametrize("ref", ["prefix@2", "unified@1", "unified@2", "unified@3"])
@pytest.mark.parametrize("bound", [False, True])
def test_tool_named_finds_exactly_the_offered_tools(ref: str, bound: bool) -> None:
    protocol = resolve_ref(ref)
    offered = tools_for(protocol, maintainer_bound=bound)
    for spec in offered:
        assert tool_named(protocol, spec.name, maintainer_bound=bound) is spec
    others = {*REUSED, *NEW_V1, "context_compress", "nope"} - {s.name for s in offered}
    assert all(tool_named(protocol, name, maintainer_bound=bound) is None for name in others)
