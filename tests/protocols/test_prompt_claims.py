"""Issue 9, must show 1 and 2: what the prompts say is what the source says and what the tools take.

Source (../shared/seed/unified-context-protocol.zh.txt), unified@3: "为避免组间措辞自相矛盾，v3 三组共同
移除了 v2 中“最后的/末尾状态”和“以上是历史记录”的位置限定" — so v3's prompt is v2's without those two
qualifiers and nothing else. unified@2: "context_window_open、context_window_memory_set、
context_window_complete、context_fold_create 新增必填 expectedWindowId" — exactly those four tools.
The claims are read from the rendered prompts (backticked tool and argument names, sentence by
sentence) and checked against the tool schemas the same protocol offers; nothing here lists what a
prompt "should" mention.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from protocols import CATALOG, COMPRESS_TOOL, resolve, resolve_ref

PLACEMENTS = ("trailing_assistant", "before_history_assistant", "trailing_user")
BOUND = (False, True)
SOURCE_FOUR = {"context_window_open", "context_window_memory_set", "context_window_complete", "context_fold_create"}
PROTOCOLS_SRC = Path(__file__).parents[2] / "protocols"


def word_diff(old: str, new: str) -> list[tuple[str, list[str], list[str]]]:
    """(operation, old words, new words) for every difference between the two texts' words."""
    a, b = old.split(), new.split()
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [(op, a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in ops if op != "equal"]


@pytest.mark.parametrize("bound", BOUND)
def test_v3_prompt_is_v2_without_the_positional_qualifiers_only(bound: bool) -> None:
    """Must show 1: the word-level diff v2 → v3 is exactly the two qualifiers the source names:
    "最后的/末尾状态" (the *final* context_state) and "以上是历史记录" (the messages above it are history)."""
    v2 = resolve("unified", 2, {}).prompt(maintainer_bound=bound)
    for placement in PLACEMENTS:
        v3 = resolve("unified", 3, {"stateMessagePlacement": placement}).prompt(maintainer_bound=bound)
        assert word_diff(v2, v3) == [
            ("delete", ["final"], []),
            ("delete", ["The", "messages", "above", "it", "are", "history."], []),
        ]


def test_v3_prompt_keeps_the_header_wording_of_v2() -> None:
    """The header sentence is not positional in the source's sense: v3 says what v2 says."""
    for bound in BOUND:
        for ref in ("unified@2", "unified@3"):
            assert "The context header (the first assistant message) shows" in resolve_ref(ref).prompt(
                maintainer_bound=bound)
        assert "not a request from the user" not in resolve_ref("unified@3").prompt(maintainer_bound=bound)


def test_handoff_rule_reaches_the_v2_and_v3_decision_prompt() -> None:
    """Source, unified@2: "交接 input 是进入时的任务数据，模型需结合随后记录和检查点判断进度，不能每轮重演交接"."""
    for ref in ("unified@2", "unified@3"):
        prompt = " ".join(resolve_ref(ref).prompt().split())
        assert ("The handoff input (`handoffInput` in context_state) is the task data from when you entered the "
                "window: judge progress from the records after it and from the checkpoint, and never re-enact the "
                "handoff on every turn.") in prompt


# claims ---------------------------------------------------------------------------------------------
def _schemas(ref: str, bound: bool) -> dict[str, dict[str, object]]:
    return {t["function"]["name"]: t["function"]["parameters"]
            for t in resolve_ref(ref).tool_schemas(maintainer_bound=bound)}


def _every_tool_name() -> set[str]:
    return {name for key in CATALOG for bound in BOUND for name in _schemas(key, bound)}


def _error_codes() -> set[str]:
    """Error codes the protocol package can answer with (read from its source, not listed here)."""
    codes: set[str] = set()
    for path in PROTOCOLS_SRC.rglob("*.py"):
        codes |= set(re.findall(r'(?:ToolRejected|failure)\(\s*"([a-z_]+)"', path.read_text(encoding="utf-8")))
    return codes


def _sentences(prompt: str) -> list[str]:
    flat = re.sub(r"\n(?!- )", " ", prompt)  # re-join wrapped lines; keep bullets apart
    return [s for s in re.split(r"(?<=\.)\s+|\n|:\s*(?=- )", flat) if s.strip()]


def claims(prompt: str, schemas: dict[str, dict[str, object]]) -> list[tuple[str, set[str], set[str]]]:
    """(sentence, tools it names, arguments it names) for every sentence naming an argument."""
    arguments = {a for s in schemas.values() for a in s.get("properties", {})}  # type: ignore[union-attr]
    known_tools, codes = _every_tool_name(), _error_codes()
    out = []
    for sentence in _sentences(prompt):
        names = {t.split(":")[0].strip() for t in re.findall(r"`([^`]+)`", sentence)}
        tools = {n for n in names if n in known_tools}
        args = {n for n in names if n in arguments and n not in tools}
        strays = {n for n in names - tools - args if n.startswith("context_") and n not in codes}
        assert not strays, f"{sentence!r} names {strays}: neither a tool nor an error code"
        for tool in tools:
            assert tool in schemas, f"{sentence!r} names {tool}, which this protocol does not offer"
        if "every context tool" in sentence.lower():
            tools = set(schemas)
        if args:
            out.append((sentence, tools, args))
    return out


@pytest.mark.parametrize("ref", list(CATALOG))
@pytest.mark.parametrize("bound", BOUND)
def test_every_argument_claim_of_every_prompt_holds_for_the_schemas(ref: str, bound: bool) -> None:
    """Must show 2: a tool the prompt says takes an argument has it in its schema; "needs" means required."""
    schemas = _schemas(ref, bound)
    prompt = resolve_ref(ref).prompt(maintainer_bound=bound)
    found = claims(prompt, schemas)
    for sentence, tools, args in found:
        for tool in tools:
            params = schemas[tool]
            for arg in args:
                assert arg in params["properties"], f"{sentence!r}: {tool} has no argument {arg}"  # type: ignore[operator]
                if " needs " in sentence:
                    assert arg in params["required"], f"{sentence!r}: {arg} is optional in {tool}"  # type: ignore[operator]
    if schemas:
        assert any("purpose" in args for _, _, args in found)


@pytest.mark.parametrize("ref", ["unified@2", "unified@3"])
@pytest.mark.parametrize("bound", BOUND)
def test_the_prompt_names_exactly_the_tools_that_take_expected_window_id(ref: str, bound: bool) -> None:
    """Must show 2: no "on every write" — the four tools of the source, plus context_compress when the
    agent is bound to the maintainer (a write of the window like them, P-73)."""
    schemas = _schemas(ref, bound)
    takers = {name for name, s in schemas.items() if "expectedWindowId" in s["properties"]}  # type: ignore[operator]
    assert takers == SOURCE_FOUR | ({COMPRESS_TOOL} if bound else set())
    for name in takers:
        assert "expectedWindowId" in schemas[name]["required"]  # type: ignore[operator]
    prompt = resolve_ref(ref).prompt(maintainer_bound=bound)
    said = {t for _, tools, args in claims(prompt, schemas) if "expectedWindowId" in args for t in tools}
    assert said == takers
    assert "every write" not in " ".join(prompt.split())
    assert "expectedWindowId" not in schemas["context_task_memory_set"]["properties"]  # type: ignore[operator]


def test_unbound_prompts_never_name_the_compression_tool_and_prefix_never_does() -> None:
    """context_compress is offered only to an agent bound to the maintainer, never by prefix@2."""
    for key in CATALOG:
        assert COMPRESS_TOOL not in resolve_ref(key).prompt()
        assert COMPRESS_TOOL not in _schemas(key, False)
    assert COMPRESS_TOOL not in resolve_ref("prefix@2").prompt(maintainer_bound=True)
    assert _schemas("prefix@2", True) == {}
    for key in ("unified@1", "unified@2", "unified@3"):
        assert COMPRESS_TOOL in resolve_ref(key).prompt(maintainer_bound=True)
