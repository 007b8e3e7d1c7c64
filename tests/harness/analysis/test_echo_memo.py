"""``echo_source`` keeps each derived text's and tool description's n-grams and JSON keys once per text: its
answer is the one computed from scratch, however often a text recurs (the classifier of _failure_modes)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.analysis import _failure_modes, echo_source
from harness.analysis._failure_modes import DERIVED_TYPES


def _from_scratch(answer: str, derived: Sequence[tuple[str, str]], tools: Sequence[tuple[str, str]]) -> str | None:
    """echo_source with nothing kept: every text's n-grams and keys computed for this call."""
    _failure_modes._source_grams.cache_clear()
    _failure_modes._derived_keys.cache_clear()
    return echo_source(answer, derived, tools)


_words = st.sampled_from(["[context_state]", "[quote_calculate]", '"windowId": "a"', '"task": 1,', "budget 6900",
                          "Compute a quote", "\n{", "}", " ", "\n", "the", "预算"])
_text = st.lists(_words, max_size=14).map("".join)
_state = st.builds(lambda head, body: f"{head}\n{json.dumps(body)}", _text,
                   st.dictionaries(st.sampled_from(["windowId", "task", "id", "status", "memory"]), _text, max_size=4))
_derived = st.lists(st.tuples(st.sampled_from(DERIVED_TYPES), _state | _text), max_size=3)
_tools = st.lists(st.tuples(st.sampled_from(["quote_calculate", "schedule_plan"]), _text), max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_text | _state, _derived, _tools), min_size=1, max_size=4))
def test_echo_source_is_the_one_computed_from_scratch(cases: list[tuple[str, list, list]]) -> None:
    expected = [_from_scratch(*case) for case in cases]
    for _ in range(2):  # every text again, from what the calls before kept
        assert [echo_source(*case) for case in cases] == expected


def test_a_kept_text_gives_what_it_gave_the_first_time() -> None:
    state = '[context_state]\n{"windowId": "alpha", "task": "quote", "memory": "6900"}'
    tools = [("quote_calculate", "Compute a quote for a project from its budget and scope")]
    for _ in range(2):
        assert echo_source('{"windowId": "alpha", "task": "x"}', [("context_state", state)], tools) == "context_state"
        assert echo_source("Compute a quote for a project from its budget", [], tools) == "tool:quote_calculate"
        assert echo_source("The quote is 6900.", [("context_state", state)], tools) is None
