"""``harness render`` (O-40): deterministic request JSON; invalid input exits 2 without a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

DATA = Path(__file__).parents[2] / "protocols" / "data"
GOLDEN = Path(__file__).parents[2] / "protocols" / "golden"
runner = CliRunner()


def test_render_prints_the_golden_request() -> None:
    """O-40, P-20: the CLI prints exactly the reviewed render."""
    out = runner.invoke(app, ["render", "--protocol", "unified@3", "--option", "stateMessagePlacement=trailing_user",
                              str(DATA / "resume_alpha.json")])
    assert out.exit_code == 0, out.output
    golden = json.loads((GOLDEN / "resume_alpha.unified@3-C.json").read_text(encoding="utf-8"))
    assert json.loads(out.stdout) == golden


def test_render_with_model_adds_the_preflight_of_the_body() -> None:
    """The verdicts and the wire shape of the rendered request's provider body, without any call."""
    out = runner.invoke(app, ["render", "--protocol", "unified@2", str(DATA / "resume_alpha.json"),
                              "--model", "anthropic/claude-opus-4-6"])
    assert out.exit_code == 0, out.output
    check = json.loads(out.stdout)["preflight"]
    assert (check["verdict"], check["rule"]) == ("rejected", "claude-4.6-no-prefill")
    assert check["wire"]["endsWithAssistant"] and check["wire"]["turns"][-1]["blocks"] == ["state"]
    assert any(v["rule"] == "claude-4.6-no-prefill" and v["source"] for v in check["verdicts"])
    merged = runner.invoke(app, ["render", "--protocol", "unified@3", "--option", "stateMessagePlacement=trailing_user",
                                 str(DATA / "resume_alpha.json"), "--model", "gemini/gemini-2.5-flash"])
    assert "part of the user's own input" in json.loads(merged.stdout)["preflight"]["message"]


def test_broken_pairing_and_bad_input_exit_2_with_the_reason(tmp_path: Path) -> None:
    """O-40: a state that cannot be projected exits 2 naming why; no traceback."""
    state = json.loads((DATA / "resume_alpha.json").read_text(encoding="utf-8"))
    state["messages"] = state["messages"][:-1]  # drop the resume call's result: a dangling call
    state["upperBound"] = len(state["messages"])
    state["kv"]["activeWindow"] = "beta"
    path = tmp_path / "dangling.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    cases = [
        (["render", "--protocol", "unified@2", str(path)], "no result"),
        (["render", "--protocol", "unified@3", "--option", "stateMessagePlacement=system", str(path)],
         "stateMessagePlacement"),
        (["render", "--protocol", "unified@7", str(path)], "unknown protocol"),
        (["render", "--protocol", "unified@1", str(tmp_path / "missing.json")], "does not exist"),
    ]
    for args, reason in cases:
        out = runner.invoke(app, args)
        assert out.exit_code == 2, (args, out.output)
        assert reason in out.output.replace("\n", " ")
        assert "Traceback" not in out.output
