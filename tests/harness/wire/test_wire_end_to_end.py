"""The fixed plan's ``simple`` and ``tool_continuation`` stages end to end over each provider format.

The harness's own engine and litellm adapter against the strict emulators on loopback: each group's
trial on a fresh root session, as the runner runs them. What the preflight predicts from the body
built offline is what the provider then does, and the body each call sent (the snapshot's
``providerRequest``) reads as the offline analysis says.
"""

from __future__ import annotations

import pytest

from harness.wire import analyze_wire
from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator
from tests.helpers.wire_requests import LOOKUP, SIMPLE
from tests.helpers.wire_trials import KEY_ENV, predicted, provider_requests, trial

STAGED = ["A", "B", "C", "v2", "v1"]  # the groups of the two stages


@pytest.fixture(autouse=True)
def emulator_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "emulator-key-not-secret-0123")


def check_stages(model: str, base: str, group: str) -> None:
    # litellm refuses ``temperature`` for Gemini 3.6+ before any call (UnsupportedParamsError): sent unset there
    temperature = None if model == "gemini/gemini-3.6-flash" else 0.0
    simple, _ = trial(model, base, group, SIMPLE, temperature=temperature)
    lookup, store = trial(model, base, group, LOOKUP, temperature=temperature)
    if predicted(model, group) == "rejected":
        for result in (simple, lookup):
            assert (result.status, result.error_class) == ("error", "provider_rejected"), result
        return
    assert simple.status == "completed" and "7650" in str(simple.final_answer)
    assert lookup.status == "completed" and "2100" in str(lookup.final_answer)
    assert [c.name for c in lookup.tool_calls] == ["budget_lookup"]
    bodies = provider_requests(store, lookup)
    assert len(bodies) == 2 and "emulator-key-not-secret-0123" not in str(bodies)
    if group == "C":  # what the provider received: the state inside another turn
        assert analyze_wire(bodies[0]).state.mergedWith == ["user input"]  # type: ignore[union-attr]
        assert analyze_wire(bodies[1]).state.mergedWith == (  # type: ignore[union-attr]
            [] if model.startswith("gemini/") else ["tool result"])


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-6"])
@pytest.mark.parametrize("group", STAGED)
def test_two_stages_over_anthropic_messages(model: str, group: str,
                                            anthropic_server: tuple[AnthropicEmulator, str]) -> None:
    emulator, base = anthropic_server
    check_stages(model, base, group)
    rejected = [e for e in emulator.exchanges if e.status != 200]
    assert bool(rejected) == (predicted(model, group) == "rejected")


@pytest.mark.parametrize("model", ["gemini/gemini-3-pro-preview", "gemini/gemini-3.6-flash"])
@pytest.mark.parametrize("group", STAGED)
def test_two_stages_over_gemini_generate_content(model: str, group: str,
                                                 gemini_server: tuple[GeminiEmulator, str]) -> None:
    emulator, base = gemini_server
    check_stages(model, base, group)
    rejected = [e for e in emulator.exchanges if e.status != 200]
    assert bool(rejected) == (predicted(model, group) == "rejected")
