"""The difference panel's intro is computed from the two requests, not asserted (issue 9 follow-up):
it said v2 differs from A "only in the prompt words" while the panel showed a state-text difference
too. Source (unified@3): v3 removed v2's positional qualifiers ("移除了 v2 中“最后的/末尾状态”和“以上是
历史记录”的位置限定") and its state says no role carrying it grants user authority ("C 的 user 角色也不构成
用户的新授权"): v2 differs from A in both."""

from __future__ import annotations

from harness.rendering._differences import differences
from harness.rendering._render import render_named
from harness.results import GroupDifference, differs_in, summarize, word_diff
from harness.results._differences import RolePair, StateDifference, StatePlace
from protocols import STATE_VIEW_V3, resolve

ROLES = ["system", "assistant", "user", "assistant"]


def _diff(group: str, **kw: object) -> GroupDifference:
    base: dict[str, object] = {
        "group": group, "control": "A", "stage": "simple", "groupRequest": "g", "controlRequest": "c",
        "systemPrompt": [], "tools": [], "messageRoles": RolePair(control=ROLES, group=ROLES),
        "stateMessage": StateDifference(control=StatePlace(position=3, role="assistant"),
                                        group=StatePlace(position=3, role="assistant"))}
    return GroupDifference.model_validate({**base, **kw})


def _v2() -> GroupDifference:
    prompt = word_diff(resolve("unified", 3, {}).prompt(maintainer_bound=True),
                       resolve("unified", 2, {}).prompt(maintainer_bound=True))
    state = word_diff("[context_state] lead." + STATE_VIEW_V3, "[context_state] lead.")
    return _diff("v2", systemPrompt=prompt, stateMessage=StateDifference(
        control=StatePlace(position=3, role="assistant"), group=StatePlace(position=3, role="assistant"), text=state))


def test_v2_is_said_to_differ_in_the_prompt_words_and_the_v3_state_sentence() -> None:
    d = summarize(_v2(), "sentinelGroup")
    assert d.differsIn == ["systemPrompt", "stateText"] and d.expected == ["systemPrompt", "stateText"]
    assert "exactly the positional qualifiers unified@3 removed from unified@2's prompt" in d.summary
    assert f"A's carries unified@3's sentence “{STATE_VIEW_V3.strip()}”, which v2's lacks" in d.summary
    assert "也不构成用户的新授权" in d.summary and d.summary.endswith("As designed.")
    assert "only in the prompt" not in d.summary


def test_b_and_c_as_designed_and_a_difference_beyond_the_design_is_named() -> None:
    moved = ["system", "assistant", "assistant", "user"]
    b = summarize(_diff("B", messageRoles=RolePair(control=ROLES, group=moved), stateMessage=StateDifference(
        control=StatePlace(position=3, role="assistant"), group=StatePlace(position=2, role="assistant"))),
        "positionGroup")
    assert b.differsIn == ["statePosition"]  # the reordered role list is the state's move, not another change
    assert b.summary.startswith("B differs from A in the state message's position (#3 → #2); identical: system "
                                "prompt, tools, roles of the other messages")
    assert b.summary.endswith("As designed.")
    confounded = summarize(_diff("C", systemPrompt=word_diff("a b", "a c"), stateMessage=StateDifference(
        control=StatePlace(position=3, role="assistant"), group=StatePlace(position=3, role="user"))), "roleGroup")
    assert confounded.differsIn == ["systemPrompt", "stateRole"]
    assert confounded.summary.endswith("Not as designed: differs beyond the design in the system prompt.")
    same = summarize(_diff("C"), "roleGroup")
    assert same.differsIn == [] and same.summary.startswith("C is identical to A in everything compared.")
    assert same.summary.endswith("identical where the design expects a difference: state message's role.")


def test_a_group_without_a_state_message_is_not_called_identical_in_it() -> None:
    v1 = summarize(_diff("v1", tools=["context_compress"], messageRoles=RolePair(control=ROLES, group=ROLES[:3]),
                         stateMessage=StateDifference(control=StatePlace(position=3, role="assistant"), group=None)),
                   "controlGroup")
    assert v1.differsIn == ["tools", "stateMessage"] and v1.expected is None
    assert "the state message (v1 has none); identical: system prompt, roles of the other messages, other " \
           "messages." in v1.summary
    assert "not a single-variable comparison with A" in v1.summary
    assert differs_in(v1) == v1.differsIn


def test_the_panel_intro_lists_the_computed_lines_instead_of_a_fixed_claim() -> None:
    report = {"groupDifferences": [summarize(_v2(), "sentinelGroup").model_dump(mode="json")]}
    diffs = differences(report)
    pages = (("_differences.md.j2", "which v2's lacks"), ("_differences.html.j2", "which v2&#39;s lacks"))
    for template, lacks in pages:
        text = render_named(template, {"diffs": diffs})
        assert "v2 only in the prompt words" not in text
        assert lacks in text and "也不构成用户的新授权" in text
    old = {"groupDifferences": [_v2().model_dump(mode="json")]}  # written before the summary was kept
    assert "before the per-group summary was kept" in render_named("_differences.md.j2", {"diffs": differences(old)})
