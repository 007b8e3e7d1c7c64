"""``harness apply`` (O-41): one tool call against a state file; P-42 replay, P-73/P-74 through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from harness.cli import app

RUN = "0123456789abcdef0123456789abcdef"
RESUME_ALPHA = {"purpose": "复核报价", "expectedWindowId": "beta", "windowId": "alpha", "resume": True,
                "input": "beta排期已完成；只核对alpha检查点，不覆写报价，随后汇报。"}


def _message(index: int, window: str, role: str, kind: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"m{index}", "index": index, "runId": RUN, "windowId": window, "role": role, "kind": kind,
            "content": content, **extra}


def _state(tmp_path: Path, name: str = "state.json", **overrides: Any) -> Path:
    """A session in window beta after alpha quoted: beta's schedule is done, alpha holds the quote."""
    state = {
        "sessionId": "s1",
        "currentRunId": RUN,
        "agent": {"systemPrompt": "You quote and schedule. {{context_protocol}}"},
        "kvRevision": 4,
        "messages": [
            _message(1, "main", "user", "input", "报价后排期", inputRun=RUN),
            _message(2, "alpha", "assistant", "text", "报价 42000"),
            _message(3, "beta", "assistant", "text", "排期：周三"),
        ],
        "kv": {
            "activeWindow": "beta",
            "window/main": {"status": "suspended"},
            "window/alpha": {"goal": "报价", "status": "suspended", "workingMemory": "报价 42000",
                             "parent": "main", "enteredFrom": "main"},
            "window/beta": {"goal": "排期", "status": "active", "parent": "alpha", "enteredFrom": "alpha"},
        },
        **overrides,
    }
    path = tmp_path / name
    path.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    return path


def _apply(path: Path, *extra: str, protocol: str = "unified@2") -> tuple[int, Any, str]:
    result = CliRunner().invoke(app, ["apply", str(path), "--protocol", protocol, *extra])
    try:
        out = json.loads(result.stdout)
    except json.JSONDecodeError:
        out = None
    return result.exit_code, out, result.stderr


def _save(tmp_path: Path, state: dict[str, Any], name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    return path


def test_o41_p73_p74_resume_example_then_mismatch_through_the_cli(tmp_path: Path) -> None:
    code, out, _ = _apply(_state(tmp_path), "--tool", "context_window_open", "--args",
                          json.dumps(RESUME_ALPHA, ensure_ascii=False), "--call-id", "c-resume")
    assert code == 0 and out["result"]["success"] is True
    state = out["state"]
    assert state["kvRevision"] == 5 and state["kv"]["activeWindow"] == "alpha"
    assert state["kv"]["currentWindowEntry"] == {"windowId": "alpha", "fromWindow": "beta", "enteredAtUpperBound": 3,
                                                 "input": RESUME_ALPHA["input"], "revision": 5}
    assert state["receipts"]["c-resume"] == out["result"]
    # the next call still claims beta: refused, nothing written
    code, out2, _ = _apply(_save(tmp_path, state, "after.json"), "--tool", "context_window_memory_set",
                           "--args", json.dumps({"purpose": "写排期", "expectedWindowId": "beta",
                                                 "memory": "排期：周三"}, ensure_ascii=False))
    assert code == 0
    error = out2["result"]["error"]
    assert error["code"] == "context_window_mismatch"
    assert error["currentWindowId"] == "alpha" and error["stateRevision"] == 5
    assert out2["state"]["kvRevision"] == 5 and out2["state"]["kv"] == state["kv"]


def test_o41_p42_call_id_replays_the_receipt_from_the_state_file(tmp_path: Path) -> None:
    args = ["--tool", "context_fold_create", "--call-id", "c-fold", "--protocol", "unified@1",
            "--args", json.dumps({"purpose": "p", "fromIndex": 3, "throughIndex": 3, "summary": "排期"})]
    code, out, _ = _apply(_state(tmp_path), *args)
    assert code == 0 and out["result"]["foldId"] == "f1"
    code, again, _ = _apply(_save(tmp_path, out["state"], "after.json"), *args)
    assert again["result"] == out["result"]
    assert again["state"]["kvRevision"] == out["state"]["kvRevision"]
    assert [k for k in again["state"]["kv"] if k.startswith("fold/")] == ["fold/f1"]


def test_o41_frozen_revision_option_gives_stale(tmp_path: Path) -> None:
    code, out, _ = _apply(_state(tmp_path), "--tool", "context_task_memory_set", "--frozen-revision", "3",
                          "--args", '{"purpose":"p","memory":"m"}', protocol="unified@1")
    assert code == 0 and out["result"]["error"]["code"] == "context_state_stale"
    assert out["result"]["error"]["currentRevision"] == 4 and out["state"]["kvRevision"] == 4


def test_o41_upper_bound_option_bounds_what_the_call_saw(tmp_path: Path) -> None:
    code, out, _ = _apply(_state(tmp_path), "--tool", "context_window_search", "--upper-bound", "1",
                          "--args", '{"purpose":"p","query":"排期"}')
    assert code == 0 and [m["index"] for m in out["result"]["matches"]] == [1]


def test_o41_model_mistakes_are_tool_results_not_exit_codes(tmp_path: Path) -> None:
    code, out, _ = _apply(_state(tmp_path), "--tool", "context_window_list", "--args", "{not json")
    assert code == 0 and out["result"]["error"]["code"] == "invalid_arguments"
    code, out, _ = _apply(_state(tmp_path), "--tool", "context_window_list", "--args", "{}", protocol="prefix@2")
    assert code == 0 and out["result"]["error"]["code"] == "unknown_tool"
    assert len(out["state"]["receipts"]) == 1  # a fresh call id was used and the failure stored


def test_invalid_cli_input_exits_2_without_traceback(tmp_path: Path) -> None:
    good = _state(tmp_path)
    cases = [
        (tmp_path / "missing.json", ["--protocol", "unified@2"], "does not exist"),
        (good, ["--protocol", "unified@9"], "unknown protocol"),
        (good, ["--protocol", "unified@2", "--option", "maxFolds=0"], "maxFolds"),
        (good, ["--protocol", "unified@2", "--upper-bound", "9"], "--upper-bound"),
        (good, ["--protocol", "unified@2", "--frozen-revision", "-1"], "--frozen-revision"),
    ]
    broken = _state(tmp_path, "broken.json", kvRevision=-1)
    cases.append((broken, ["--protocol", "unified@2"], "kvRevision"))
    for path, opts, needle in cases:
        result = CliRunner().invoke(app, ["apply", str(path), *opts, "--tool", "context_window_list",
                                          "--args", '{"purpose":"p"}'])
        assert result.exit_code == 2, (opts, result.output)
        assert needle in result.stderr.replace("\n", "")
        assert "Traceback" not in result.output


def test_option_reaches_the_protocol(tmp_path: Path) -> None:
    code, out, _ = _apply(_state(tmp_path), "--option", "maxWindows=3", "--tool", "context_window_open",
                          "--args", json.dumps({"purpose": "p", "windowId": "gamma", "goal": "g", "input": "i",
                                                "expectedWindowId": "beta"}))
    assert code == 0 and out["result"]["error"]["code"] == "window_limit_exceeded"
