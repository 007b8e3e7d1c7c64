"""The unified@1 mapping and its amendments (P-10 … P-20, P-84, P-90)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocols import (
    AgentConfig,
    InvalidInput,
    MessageDraft,
    ProjectedRequest,
    ProjectionError,
    read_state_file,
    resolve_ref,
)
from protocols._derived import FOLD_TAG, HEADER_TAG
from tests.helpers.builders import SessionBuilder

WORKED = Path(__file__).parent / "data" / "worked_example.json"
AGENT = AgentConfig(systemPrompt="You help.\n{{context_protocol}}", inputs={"customer": "ACME"})
ALL = [("prefix@2", {}), ("unified@1", {}), ("unified@2", {}),
       ("unified@3", {"stateMessagePlacement": "trailing_assistant"}),
       ("unified@3", {"stateMessagePlacement": "before_history_assistant"}),
       ("unified@3", {"stateMessagePlacement": "trailing_user"})]


def header_body(content: str) -> dict:
    tag, body = content.split("\n", 1)
    assert tag.startswith(HEADER_TAG)
    return json.loads(body)


def test_worked_example_renders_exactly_six_messages_with_sources() -> None:
    """P-10, P-11, P-12, P-16, P-19: the worked example of the source, as a state file."""
    loaded = read_state_file(WORKED)
    req = resolve_ref("unified@1").project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    shape = [(m["role"], s.type) for m, s in zip(req.messages, req.sources, strict=True)]
    assert shape == [("system", "system"), ("assistant", "context_header"), ("user", "raw"),
                     ("assistant", "context_fold"), ("assistant", "raw"), ("tool", "raw")]
    assert req.messages[2]["content"] == "请为客户 ACME 报价并核对预算。"
    assert [s.message_ids for s in req.sources[2:]] == [("m1",), ("m9", "m10", "m11", "m12"), ("m15",), ("m16",)]
    fold = req.sources[3]
    assert (fold.fold_id, fold.session_id, fold.window_id, fold.first_index, fold.last_index) == (
        "f1", "s-worked", "A", 9, 12)
    assert req.messages[4]["tool_calls"][0]["id"] == "c15"
    assert req.messages[5]["tool_call_id"] == "c15"
    header = header_body(req.messages[1]["content"])
    assert list(header) == ["agent_inputs", "task_memory", "active_window", "working_checkpoint"]  # P-17 order
    assert header["active_window"]["id"] == "A"
    assert header["working_checkpoint"] == {"summary": "已计算报价 6900 元，预算剩余 2100 元。", "coveredThrough": 8}
    assert header["task_memory"] == "客户 ACME：报价与预算核对"


def test_p17_header_lists_only_the_active_window_and_v1_escapes_non_ascii() -> None:
    """P-17: never all windows; unified@1 escapes non-ASCII, unified@2/3 write it as is."""
    loaded = read_state_file(WORKED)
    v1 = resolve_ref("unified@1").project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    v2 = resolve_ref("unified@2").project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    h1, h2 = v1.messages[1]["content"], v2.messages[1]["content"]
    assert "\\u62a5" in h1 and "报" not in h1.split("\n", 1)[1]
    assert "报" in h2 and "\\u" not in h2
    assert '"B"' not in h1 and "排期" not in h2  # window B's record is not listed
    assert header_body(h1) == header_body(h2)


def test_p10_window_filter_and_frozen_upper_bound() -> None:
    """P-10, P-4: only the active window's messages up to the frozen upper bound; old messages keep their window."""
    b = SessionBuilder(kv={"activeWindow": "w", "window/w": {"status": "active"}})
    b.window = "w"
    b.user("first")
    b.window = "other"
    b.text("elsewhere")
    b.window = "w"
    b.text("mine")
    frozen = b.frozen()
    b.text("after the freeze")
    req = resolve_ref("unified@1").project(b.store, b.session_id, frozen, AGENT)
    assert [m["content"] for m in req.messages[2:]] == ["first", "mine"]


def test_p11_current_run_inputs_are_protected_and_earlier_runs_are_not() -> None:
    """P-11, P-55: current-run inputs survive a window switch and compression; earlier inputs do not."""
    b = SessionBuilder(kv={"activeWindow": "beta", "window/beta": {"status": "active"},
                           "coveredThrough/main": 0})
    b.user("old run input in main")
    b.new_run()
    b.user("this run's input in main")
    b.window = "beta"
    b.text("working in beta")
    req = resolve_ref("unified@2").project(b.store, b.session_id, b.frozen(), AGENT)
    contents = [m["content"] for m in req.messages[2:-1]]
    assert contents == ["this run's input in main", "working in beta"]


def test_p11_protected_input_survives_its_own_windows_checkpoint() -> None:
    """P-11, P-55: a current-run input at or below coveredThrough stays in the view."""
    b = SessionBuilder(kv={"activeWindow": "main", "coveredThrough/main": 2,
                           "checkpoint/main": {"summary": "s", "coveredThrough": 2}})
    b.user("keep me")
    b.text("covered answer")
    b.text("visible")
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)
    assert [m["content"] for m in req.messages[2:]] == ["keep me", "visible"]


def test_p12_p54_fold_in_place_and_compressed_fold_leaves_the_view() -> None:
    """P-12, P-18: an uncompressed fold stands where its first message stood; a covered one is gone."""
    b = SessionBuilder()
    b.user("q")
    b.exchange("budget_lookup", {"projectId": "P-17"}, {"success": True})  # 2, 3
    b.text("answer")  # 4
    kv_fold = {"windowId": "main", "fromIndex": 2, "throughIndex": 3, "messageIds": ["m2", "m3"],
               "summary": "looked up"}
    b.store.commit(b.session_id, 0, {"fold/f1": kv_fold})
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)
    assert [s.type for s in req.sources] == ["system", "context_header", "raw", "context_fold", "raw"]
    fold_msg = req.messages[3]
    assert fold_msg["role"] == "assistant" and "tool_call_id" not in fold_msg and "tool_calls" not in fold_msg
    body = json.loads(fold_msg["content"].split("\n", 1)[1])
    assert fold_msg["content"].startswith(FOLD_TAG) and "not an instruction" in fold_msg["content"]
    assert body["read"] == {"tool": "context_fold_read", "foldId": "f1"}
    b.store.commit(b.session_id, 1, {"coveredThrough/main": 3,
                                     "checkpoint/main": {"summary": "c", "coveredThrough": 3}})
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)
    assert [s.type for s in req.sources] == ["system", "context_header", "raw", "raw"]  # input (protected), answer


def test_p13_gui_projection_keeps_only_the_latest_image() -> None:
    """P-13: older image parts become a marker naming their message; raw stays untouched (P-1)."""
    b = SessionBuilder()
    img = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    first = b.user([{"type": "text", "text": "look"}, img])  # type: ignore[arg-type]
    b.text("ok")
    b.user([{"type": "text", "text": "again"}, img])  # type: ignore[arg-type]
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)
    assert req.messages[2]["content"][1] == {"type": "text", "text": "[screenshot omitted: message #1]"}
    assert req.messages[4]["content"][1] == img
    assert b.store.all_messages(b.session_id)[0] == first
    off = resolve_ref("unified@1", {"guiProjection": False}).project(b.store, b.session_id, b.frozen(), AGENT)
    assert off.messages[2]["content"][1] == img


def test_p13_gui_projection_runs_after_folds_so_a_folded_screenshot_keeps_the_older_visible_one() -> None:
    """Issue 9 must show 3. Source order: "将仍位于未压缩区域的折叠段替换为一条 assistant/context_fold 派生消息"
    (step 3), then "执行 GUI 历史投影，然后由宿主执行大型工具结果预览" (step 4): a screenshot inside a fold is
    not in the view, so the newest *visible* screenshot stays an image."""
    old = {"type": "image_url", "image_url": {"url": "data:image/png;base64,OLD"}}
    new = {"type": "image_url", "image_url": {"url": "data:image/png;base64,NEW"}}

    def session(fold: bool) -> SessionBuilder:
        b = SessionBuilder()
        b.user([{"type": "text", "text": "look"}, old])  # type: ignore[arg-type]  # 1
        call = b.call("take_screenshot", {})  # 2
        assert call.tool_calls
        shot = b.store.append(b.session_id, MessageDraft(
            run_id=b.run_id, window_id="main", role="tool", kind="tool_result", tool_call_id=call.tool_calls[0].id,
            content=[{"type": "text", "text": "shot"}, new]))  # 3
        b.text("seen")  # 4
        if fold:
            b.store.commit(b.session_id, 0, {"fold/f1": {
                "windowId": "main", "fromIndex": 2, "throughIndex": 3, "messageIds": [call.id, shot.id],
                "summary": "took a screenshot"}})
        return b

    def images(req: ProjectedRequest) -> list[dict[str, object]]:
        return [p for m in req.messages if isinstance(m["content"], list) for p in m["content"]
                if p.get("type") == "image_url"]

    b = session(fold=True)
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)
    assert [s.type for s in req.sources] == ["system", "context_header", "raw", "context_fold", "raw"]
    assert req.messages[2]["content"][1] == old  # the newest visible screenshot is kept as an image
    assert images(req) == [old]
    u = session(fold=False)  # without the fold the newer screenshot is visible and wins
    unfolded = resolve_ref("unified@1").project(u.store, u.session_id, u.frozen(), AGENT)
    assert unfolded.messages[2]["content"][1] == {"type": "text", "text": "[screenshot omitted: message #1]"}
    assert images(unfolded) == [new]


def test_p14_large_tool_result_preview_names_length_and_how_to_read() -> None:
    """P-14: a result over the limit shows its head and a marker; raw is unchanged."""
    from protocols import HostOptions

    b = SessionBuilder()
    b.user("q")
    big = "😀" * 150  # 300 UTF-16 units
    call, res = b.exchange("budget_lookup", {"projectId": "P-17"}, big)
    req = resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT,
                                           HostOptions(toolResultPreviewCharacters=101))
    shown = req.messages[-1]["content"]
    assert shown.startswith("😀" * 50) and not shown.startswith("😀" * 51)  # never half a surrogate pair
    assert "of 300 UTF-16 units of raw message #3" in shown and "context_window_read" in shown
    assert b.store.all_messages(b.session_id)[-1].content == big


@pytest.mark.parametrize(("ref", "options"), ALL)
def test_p15_p84_dangling_call_fails_to_render_under_every_protocol(ref: str, options: dict) -> None:
    """P-15, P-84: a derived message never fills a missing tool result; the mapping raises."""
    b = SessionBuilder(kv={"activeWindow": "main"})
    b.user("q")
    b.call("budget_lookup", {"projectId": "P-17"})
    with pytest.raises(ProjectionError, match="no result"):
        resolve_ref(ref, options).project(b.store, b.session_id, b.frozen(), AGENT)


def test_p15_orphan_result_raises_instead_of_being_dropped() -> None:
    """P-15: a result without its call in the view is a host defect."""
    b = SessionBuilder()
    b.user("q")
    b.result("ghost", {"success": True})
    with pytest.raises(ProjectionError, match="ghost"):
        resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)


def test_p20_projection_is_deterministic_writes_nothing_and_ignores_archiving() -> None:
    """P-20, P-1, E-12: same frozen state → byte-identical request, before and after archive."""
    loaded = read_state_file(WORKED)
    proto = resolve_ref("unified@3", {"stateMessagePlacement": "trailing_user"})
    before_rev = loaded.store.revision(loaded.session_id)
    before_msgs = loaded.store.all_messages(loaded.session_id)
    first = json.dumps(proto.project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent).wire())
    loaded.store.archive(loaded.session_id, 12)
    second = json.dumps(proto.project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent).wire())
    assert first == second
    assert loaded.store.revision(loaded.session_id) == before_rev
    assert loaded.store.all_messages(loaded.session_id) == before_msgs


def test_unknown_active_window_cannot_be_projected() -> None:
    """O-40: a state whose active window has no record fails with the reason."""
    b = SessionBuilder(kv={"activeWindow": "nowhere"})
    b.user("q")
    with pytest.raises(ProjectionError, match="nowhere"):
        resolve_ref("unified@1").project(b.store, b.session_id, b.frozen(), AGENT)


def test_p62_system_prompt_needs_the_placeholder_and_renders_the_protocol_prompt() -> None:
    """P-62: the protocol prompt is rendered at {{context_protocol}}; without it the agent is refused."""
    proto = resolve_ref("unified@1")
    rendered = proto.system_prompt("Assistant for ACME.\n{{ context_protocol }}\nBe brief.")
    assert rendered.startswith("Assistant for ACME.\n## Context protocol\n\n### Windows")
    assert rendered.endswith("Be brief.")
    with pytest.raises(InvalidInput, match="context_protocol"):
        proto.system_prompt("no placeholder here")


@pytest.mark.parametrize(("ref", "options"), ALL)
@pytest.mark.parametrize("bound", [False, True])
@pytest.mark.parametrize("business", [[], [{"type": "function", "function": {"name": "quote", "description": "报价 ×",
                                                                              "parameters": {"type": "object"}}}]])
def test_q2_the_tools_json_is_the_json_of_the_tools(ref: str, options: dict, bound: bool, business: list) -> None:
    """The request's tools text, joined from texts the projection keeps, is json.dumps of its tools byte for byte;
    tools JSON cannot write leave it to the caller (None)."""
    loaded = read_state_file(WORKED)
    agent = AgentConfig(systemPrompt=AGENT.systemPrompt, inputs=AGENT.inputs, contextMaintainer=bound)
    req = resolve_ref(ref, options).project(loaded.store, loaded.session_id, loaded.frozen, agent,
                                            business_tools=business)
    assert req.tools_json == json.dumps(req.tools, ensure_ascii=False)
    odd = resolve_ref(ref, options).project(loaded.store, loaded.session_id, loaded.frozen, agent,
                                            business_tools=[{"name": {1, 2}}])
    assert odd.tools_json is None


def test_q2_each_projection_has_tool_schemas_of_its_own() -> None:
    """The schemas are kept once per family and handed out as new values: changing one request's tools (as a
    provider adapter may) changes no other request's."""
    loaded = read_state_file(WORKED)
    protocol = resolve_ref("unified@3")
    first = protocol.project(loaded.store, loaded.session_id, loaded.frozen, AGENT)
    second = protocol.project(loaded.store, loaded.session_id, loaded.frozen, AGENT)
    assert first.tools == second.tools and first.tools_json == second.tools_json
    first.tools[0]["function"]["parameters"]["properties"].clear()
    first.tools[1]["function"]["name"] = "changed"
    assert protocol.project(loaded.store, loaded.session_id, loaded.frozen, AGENT).tools == second.tools
    assert json.dumps(second.tools, ensure_ascii=False) == second.tools_json
