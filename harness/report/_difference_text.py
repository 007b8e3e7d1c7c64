"""What a group's first request differs in from the placement control's, in words (the difference
panel's summary, issue 9): computed from the two recorded requests and set against what the design
lets the group differ in, with the source's words for each designed difference.

The design (source, unified@3): B changes only the state message's position ("B（只改位置）"), C only
its role ("C（只改角色）"). The sentinel v2 is the original mapping, and unified@3 changed two things
against it that A, B and C share: it removed v2's positional qualifiers from the prompt ("移除了 v2 中
“最后的/末尾状态”和“以上是历史记录”的位置限定") and its state text says that no role carrying it grants
user authority ("C 的 user 角色也不构成用户的新授权"). So v2 differs from A in the prompt words *and*
in the state text. The control v1 and the prefix@2 baseline are other protocols: no single-variable
design, their differences are listed only.
"""

from __future__ import annotations

from functools import cache

from protocols import STATE_VIEW_V3, resolve

from ._differences import GroupDifference, WordChange, word_diff

ASPECTS: tuple[str, ...] = ("systemPrompt", "tools", "messageRoles", "stateMessage", "statePosition", "stateRole",
                            "stateText", "otherMessages")
"""What two requests can differ in, in the order the summary names them."""
_WORDS = {"systemPrompt": "system prompt", "tools": "tools", "messageRoles": "roles of the other messages",
          "stateMessage": "presence of a state message", "statePosition": "state message's position",
          "stateRole": "state message's role", "stateText": "state text", "otherMessages": "other messages"}
DESIGN: dict[str, tuple[tuple[str, ...], str]] = {
    "positionGroup": (("statePosition",), "the position group, which the source changes only in the state "
                                          "message's position (“B（只改位置）”)"),
    "roleGroup": (("stateRole",), "the role group, which the source changes only in its role (“C（只改角色）”)"),
    "sentinelGroup": (("systemPrompt", "stateText"),
                      "the sentinel, the original unified@2 mapping: unified@3 removed v2's positional "
                      "qualifiers from the prompt (“移除了 v2 中‘最后的/末尾状态’和‘以上是历史记录’的位置限定”) and "
                      "its state text says no role carrying it grants user authority "
                      "(“C 的 user 角色也不构成用户的新授权”)"),
}
"""findings role → (the aspects the design lets the group differ in from the placement control, why)."""
NO_DESIGN = {"controlGroup": "the control, another protocol (unified@1, no state message)",
             "baselineGroup": "the baseline, another protocol (prefix@2)"}
_SHOWN = 3


def _roles_besides_state(roles: list[str], position: int | None) -> list[str]:
    return [r for i, r in enumerate(roles) if i != position]


def differs_in(d: GroupDifference) -> list[str]:
    """The aspects in which the two recorded requests differ, in ``ASPECTS`` order."""
    s = d.stateMessage
    found = {
        "systemPrompt": bool(d.systemPrompt),
        "tools": bool(d.tools),
        "messageRoles": _roles_besides_state(d.messageRoles.control, s.control.position if s.control else None)
        != _roles_besides_state(d.messageRoles.group, s.group.position if s.group else None),
        "stateMessage": (s.control is None) != (s.group is None),
        "statePosition": bool(s.control and s.group and s.control.position != s.group.position),
        "stateRole": bool(s.control and s.group and s.control.role != s.group.role),
        "stateText": bool(s.text),
        "otherMessages": bool(d.otherMessages),
    }
    return [a for a in ASPECTS if found[a]]


@cache
def _v3_prompt_removals() -> tuple[tuple[tuple[str, str, str], ...], ...]:
    """The word changes from unified@3's prompt to unified@2's (with and without a bound maintainer):
    the positional qualifiers the source says v3 removed."""
    out = []
    for bound in (False, True):
        v3 = resolve("unified", 3, {}).prompt(maintainer_bound=bound)
        v2 = resolve("unified", 2, {}).prompt(maintainer_bound=bound)
        out.append(tuple((c.op, c.control, c.group) for c in word_diff(v3, v2)))
    return tuple(out)


def _changes(changes: list[WordChange]) -> str:
    n = len(changes)
    head = f"{n} word change{'' if n == 1 else 's'}"
    if n > _SHOWN:
        return head
    signs = [" ".join(([f"−“{c.control}”"] if c.control else []) + ([f"+“{c.group}”"] if c.group else []))
             for c in changes]
    return f"{head}: {', '.join(signs)}"


def _aspect_text(aspect: str, d: GroupDifference) -> str:
    s = d.stateMessage
    if aspect == "systemPrompt":
        known = tuple((c.op, c.control, c.group) for c in d.systemPrompt) in _v3_prompt_removals()
        return (f"the system prompt ({_changes(d.systemPrompt)}"
                + (": exactly the positional qualifiers unified@3 removed from unified@2's prompt)" if known else ")"))
    if aspect == "tools":
        return f"the tools ({', '.join(d.tools)})"
    if aspect == "stateMessage":
        return f"the state message ({'the control has none' if s.control is None else d.group + ' has none'})"
    if aspect == "statePosition":
        assert s.control and s.group
        return f"the state message's position (#{s.control.position} → #{s.group.position})"
    if aspect == "stateRole":
        assert s.control and s.group
        return f"the state message's role ({s.control.role} → {s.group.role})"
    if aspect == "stateText":
        view = STATE_VIEW_V3.strip()
        if [(c.op, c.control, c.group) for c in s.text] == [("delete", view, "")]:
            return (f"the state text ({d.control}'s carries unified@3's sentence “{view}”, which {d.group}'s lacks; "
                    "the source gives it to unified@3: “C 的 user 角色也不构成用户的新授权”)")
        return f"the state text ({_changes(s.text)})"
    if aspect == "messageRoles":
        return "the roles of the messages other than the state message"
    return f"other messages ({'; '.join(d.otherMessages)})"


def summarize(d: GroupDifference, role: str | None) -> GroupDifference:
    """``d`` with ``differsIn``, ``expected`` and ``summary`` filled in; ``role``: the group's findings role
    (``positionGroup``, ``sentinelGroup`` …), None when it has none."""
    found = differs_in(d)
    one_sided = "stateMessage" in found  # no state message on one side: its position, role, text are not compared
    state = ("stateMessage", "statePosition", "stateRole", "stateText") if one_sided else ("stateMessage",)
    same = [_WORDS[a] for a in ASPECTS if a not in found and a not in state]
    head = (f"{d.group} differs from {d.control} in " + "; ".join(_aspect_text(a, d) for a in found)
            if found else f"{d.group} is identical to {d.control} in everything compared")
    if found and same:
        head += f"; identical: {', '.join(same)}"
    expected: list[str] | None = None
    if role in DESIGN:
        aspects, why = DESIGN[role]
        expected = list(aspects)
        beyond = [_WORDS[a] for a in found if a not in aspects]
        missing = [_WORDS[a] for a in aspects if a not in found]
        verdict = "As designed" if not (beyond or missing) else "Not as designed: " + "; ".join(
            ([f"differs beyond the design in the {', '.join(beyond)}"] if beyond else [])
            + ([f"identical where the design expects a difference: {', '.join(missing)}"] if missing else []))
        tail = f"Design: {d.group} is {why}. {verdict}."
    else:
        tail = (f"Design: {d.group} is {NO_DESIGN[role]}, not a single-variable comparison with {d.control}."
                if role in NO_DESIGN else f"{d.group} has no part in the findings design: differences listed only.")
    return d.model_copy(update={"differsIn": found, "expected": expected, "summary": f"{head}. {tail}"})
