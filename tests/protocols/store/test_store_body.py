"""An appended message's validation and body (``protocols.store._body.written``, P-1, P-2) against the generic
computation it stands in for: ``RawMessage.model_validate({**draft.model_dump(), "id": …, "index": …})`` and
``json.dumps(msg.wire(), ensure_ascii=False)``. Drafts are built with ``model_construct`` from generated field
values, valid or not, so the store's validation is what accepts or refuses them."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocols import FrozenView, MessageDraft, RawMessage, ToolCall
from protocols.store import SqliteStore
from protocols.store._body import written

RUN = "0123456789abcdef0123456789abcdef"
_text = st.text(max_size=12)
_odd = st.one_of(st.none(), st.integers(-3, 3), st.booleans(), st.floats(allow_nan=False), _text,
                 st.lists(st.integers(), max_size=2))
_str_or_odd = st.one_of(_text, _text, _odd)


@st.composite
def _calls(draw: st.DrawFn) -> Any:
    calls = draw(st.lists(st.fixed_dictionaries({"id": _str_or_odd, "name": _str_or_odd, "arguments": _str_or_odd}),
                          max_size=2))
    made = tuple(ToolCall.model_construct(**c) for c in calls)
    return draw(st.sampled_from([None, made, list(made), tuple(dict(c.__dict__) for c in made) if made else None]))


_views = st.one_of(st.none(), st.builds(lambda r, u, run: FrozenView.model_construct(revision=r, upper_bound=u,
                                                                                     run_id=run),
                                        st.integers(-1, 5), st.integers(-1, 5), _str_or_odd))
_fields = st.fixed_dictionaries({
    "run_id": st.one_of(st.just(RUN), _str_or_odd),
    "window_id": st.one_of(st.just("main"), _str_or_odd),
    "role": st.one_of(st.sampled_from(["user", "assistant", "tool"]), _odd),
    "kind": st.one_of(st.sampled_from(["input", "text", "tool_call", "tool_result", "runtime_instruction"]), _odd),
    "content": st.one_of(_text, _text, st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text}),
                                                max_size=2), _odd),
    "tool_calls": _calls(),
    "tool_call_id": st.one_of(st.none(), _str_or_odd),
    "input_run": st.one_of(st.none(), st.just(RUN), _str_or_odd),
    "frozen_view": _views,
    "id": st.one_of(st.none(), _text),
    "reasoning": st.one_of(st.none(), st.none(), st.just({"reasoning_content": "r"}), _odd),
})


def _generic(draft: MessageDraft, msg_id: str, index: int) -> tuple[RawMessage, str]:
    msg = RawMessage.model_validate({**draft.model_dump(), "id": msg_id, "index": index})
    return msg, json.dumps(msg.wire(), ensure_ascii=False)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # model_dump warns about the constructed drafts' odd values
        try:
            return "ok", fn(*args)
        except ValidationError as exc:
            return "refused", [(e["loc"], e["type"]) for e in exc.errors()]
        except Exception as exc:  # a value model_dump cannot write: the same failure either way
            return "error", type(exc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=_fields, msg_id=st.one_of(st.just("m7"), st.just("")), index=st.sampled_from([7, 0]))
def test_written_accepts_refuses_and_writes_what_the_generic_validation_does(
        fields: dict[str, Any], msg_id: str, index: int) -> None:
    draft = MessageDraft.model_construct(**fields)
    mine, theirs = _outcome(written, draft, msg_id, index), _outcome(_generic, draft, msg_id, index)
    assert mine[0] == theirs[0], (mine, theirs)
    if mine[0] == "refused":
        assert mine[1] == theirs[1]
    if mine[0] == "ok":
        (msg, body), (expected, expected_body) = mine[1], theirs[1]
        assert msg == expected and msg.model_fields_set == expected.model_fields_set
        assert json.loads(body) == json.loads(expected_body)
        assert RawMessage.model_validate(json.loads(body)) == expected


def test_a_valid_tool_loop_message_is_written_by_the_fast_path_and_read_back_equal(tmp_path: Any) -> None:
    view = FrozenView(revision=2, upper_bound=5, run_id=RUN)
    draft = MessageDraft(run_id=RUN, window_id="w1", role="assistant", kind="tool_call", content="é\n\"x\"",
                         tool_calls=(ToolCall(id="c1", name="context_window_open", arguments='{"a": 1}'),),
                         frozen_view=view)
    msg, body = written(draft, "m6", 6)
    assert body == msg.model_dump_json(by_alias=True, exclude_none=True)  # the fast path wrote it
    assert msg.tool_calls is not draft.tool_calls and msg.frozen_view == view
    with SqliteStore(tmp_path / "s.sqlite") as store:
        store.create_session("s")
        appended = store.append("s", draft)
    with SqliteStore(tmp_path / "s.sqlite") as fresh:  # decoded from the row, not the appending store's memory
        assert fresh.all_messages("s") == [appended] and appended.content == "é\n\"x\""


def test_a_lone_surrogate_is_refused_by_the_database_and_nothing_is_written() -> None:
    store = SqliteStore()
    store.create_session("s")
    draft = MessageDraft(run_id=RUN, window_id="main", role="assistant", kind="text", content="a\ud800")
    with pytest.raises(UnicodeEncodeError):
        store.append("s", draft)
    assert store.max_index("s") == 0 and store.all_messages("s") == []
