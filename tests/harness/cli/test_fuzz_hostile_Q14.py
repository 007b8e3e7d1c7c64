"""Q-14, fuzzed: plan files, state files and tool arguments with a hostile fragment anywhere (deep
nesting, 5,000-digit integers, 1e999, NaN, lone surrogates, duplicate keys, pathological regexes,
Rich markup, random text, truncation) give exit 0 or 2 with a JSON-path error, or a structured
tool result, and never an uncaught exception. In process (typer's CliRunner), a few seconds."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from protocols import FrozenView, ToolCall, load_state, resolve_ref
from protocols.tools import tools_for
from tests.harness.plan.plan_data import fixed_plan_data

runner = CliRunner()
STATE = Path(__file__).parents[2] / "protocols" / "data" / "worked_example.json"
MARK = "@@fragment@@"
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

_HOSTILE = ["[" * 5_000 + "]" * 5_000, '{"a":' * 3_000 + "1" + "}" * 3_000, "9" * 5_000, "-" + "9" * 4_301,
            "1e999", "-1e999", "NaN", "Infinity", '"\\ud800"', '"\\udfff x"', '{"a": 1, "a": 2}',
            '"a{4294967296}"', '"' + "(" * 1_200 + ")" * 1_200 + '"', '"a(b"', '"[/]"', '"[red]x"', "true",
            '"5"', "5.0", "-1", "0", "1e308", '""', "[]", "{}", "null"]
_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
FRAGMENTS = st.one_of(st.sampled_from(_HOSTILE), _values.map(lambda v: json.dumps(v, ensure_ascii=False)),
                      st.text(max_size=12))


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


def _hostile_text(data: Any, seed: int, fragment: str) -> str:
    """``data`` as JSON with one random node replaced by ``fragment`` (raw text), sometimes also cut
    short or with a stray character, as a hand-edited or truncated file would be."""
    rng = random.Random(seed)
    target = rng.choice(_paths(data))
    node = data
    for part in target[:-1]:
        node = node[part]
    node[target[-1]] = MARK
    text = json.dumps(data, ensure_ascii=False).replace(json.dumps(MARK), fragment, 1)
    roll = rng.random()
    if roll < 0.1:
        text = text[: rng.randrange(len(text))]
    elif roll < 0.2:
        at = rng.randrange(len(text))
        text = text[:at] + rng.choice(',:{}[]"\\') + text[at:]
    return text


def _no_traceback(result: Any, allowed: tuple[int, ...] = (0, 2)) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in allowed, result.output
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert "error" in result.output


def _plan() -> dict[str, Any]:
    data = fixed_plan_data()
    data["stages"][0]["turns"][0]["checks"].append({"name": "answer_not_contains", "regexes": ["x+"]})
    return data


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), fragment=FRAGMENTS)
def test_q14_fuzzed_plan_files_exit_0_or_2(tmp_path: Path, seed: int, fragment: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(_hostile_text(_plan(), seed, fragment), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(path)])
    _no_traceback(result)
    if result.exit_code == 2:
        assert "$" in result.output  # every plan error names its JSON path


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), fragment=FRAGMENTS, tool=st.sampled_from(
    ["context_window_list", "context_window_memory_set", "context_fold_create", "context_history_list"]))
def test_q14_fuzzed_state_files_exit_0_or_2(tmp_path: Path, seed: int, fragment: str, tool: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(_hostile_text(json.loads(STATE.read_text(encoding="utf-8")), seed, fragment), encoding="utf-8")
    _no_traceback(runner.invoke(app, ["render", str(path), "--protocol", "unified@3"]))
    _no_traceback(runner.invoke(app, ["apply", str(path), "--protocol", "unified@1", "--tool", tool,
                                      "--args", '{"purpose": "fuzz"}']))


_PROTOCOLS = ["unified@1", "unified@2", "unified@3"]  # prefix@2 offers no context tools


@st.composite
def _arguments(draw: st.DrawFn) -> tuple[str, str, str]:
    """A protocol, one of its tools, and arguments: mostly an object of the tool's own fields with
    hostile or random values, sometimes arbitrary text."""
    protocol = draw(st.sampled_from(_PROTOCOLS))
    spec = draw(st.sampled_from(tools_for(resolve_ref(protocol, {}))))
    fields = [f.alias or name for name, f in spec.args.model_fields.items()] + ["revision", "sessionId"]
    if draw(st.integers(0, 9)) == 0:
        return protocol, spec.name, draw(st.sampled_from(_HOSTILE) | st.text(max_size=20))
    keys = draw(st.lists(st.sampled_from(fields), max_size=5))  # repeats give duplicate keys
    parts = [f"{json.dumps(k)}: {draw(FRAGMENTS)}" for k in keys]
    return protocol, spec.name, "{" + ", ".join(parts) + "}"


@settings(max_examples=300, deadline=None)
@given(case=_arguments())
def test_q14_fuzzed_tool_arguments_give_structured_results(case: tuple[str, str, str]) -> None:
    """A model's arguments of any shape: a result ``{"success": ...}``; a failure carries a code and
    a message and leaves the KV revision unchanged (Q-13)."""
    protocol_ref, tool, arguments = case
    protocol = resolve_ref(protocol_ref, {})
    loaded = load_state(json.loads(STATE.read_text(encoding="utf-8")))
    store, sid = loaded.store, loaded.session_id
    before = store.revision(sid)
    frozen = FrozenView(revision=before, upper_bound=loaded.frozen.upper_bound, run_id=loaded.frozen.run_id)
    result = protocol.dispatch(store, sid, ToolCall(id="fuzz-1", name=tool, arguments=arguments), frozen)
    json.dumps(result, allow_nan=False).encode("utf-8")  # the result is writable JSON
    assert isinstance(result.get("success"), bool)
    if not result["success"]:
        assert result["error"]["code"] and result["error"]["message"]
        assert store.revision(sid) == before
