"""Answers that look like tool calls the server did not parse (E-6: kept as answers, only pointed out)."""

from __future__ import annotations

import pytest

from harness.models import looks_like_unparsed_tool_call

CALL = '{"name": "budget_lookup", "arguments": {"project_id": "P-17"}}'


@pytest.mark.parametrize("text", [
    CALL,
    f"  {CALL}\n",
    f"```json\n{CALL}\n```",
    f"<tool_call>\n{CALL}\n</tool_call>",
    f"好的，我来查询预算：{CALL}",
    '{"name": "quote_calculate", "parameters": {"quantity": 3, "unit_price": 2000}}',
    '{"name": "schedule_plan", "arguments": "{\\"days\\": 2}"}',
    f"[{CALL}]",
    '{"type": "function", "function": {"name": "budget_lookup", "arguments": "{}"}}',
    f'{{"tool_calls": [{{"id": "1", "type": "function", "function": {CALL}}}]}}',
    "functions.budget_lookup:\n{\"project_id\": \"P-17\"}",
    "说明 {不是 JSON} 然后 " + CALL,
    '[quote_calculate] {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300}',  # qwen2.5-0.5b, recorded
    '[budget_lookup] {"projectId": "P-17", "budget": 9000}',
])
def test_e6_tool_call_shaped_text_is_spotted(text: str) -> None:
    assert looks_like_unparsed_tool_call(text)


@pytest.mark.parametrize("text", [
    None,
    "",
    "   ",
    "剩余预算 7650 元（12000 − 4350）。",
    "总价 6900 元：3 × 2000 + 3 × 300。",
    '{"budget": 12000, "spent": 4350, "remaining": 7650}',
    '{"name": "ACME"}',
    '{"name": 3, "arguments": {}}',
    '{"name": "", "arguments": {}}',
    "[1, 2, 3] and {broken json",
    '<context_state>{"windows": []}</context_state> 剩余 7650 元',
    '[context_state] Current execution position.\n{"windowId": "main", "status": "active"}',  # an echo, not a call
    '[context_state] {"windowId": "main"}',
    "[quote_calculate] Compute a quote: equipment = unitPrice × quantity, and the total.",  # a description echo
    '[quote_calculate] {"unitPrice": 20',  # cut mid-way: the failure is the cut
])
def test_e6_ordinary_answers_are_not_flagged(text: str | None) -> None:
    assert not looks_like_unparsed_tool_call(text)


def test_e6_known_tool_names_narrow_the_check() -> None:
    tools = ["budget_lookup", "quote_calculate"]
    assert looks_like_unparsed_tool_call(CALL, tool_names=tools)
    assert not looks_like_unparsed_tool_call('{"name": "weather", "arguments": {}}', tool_names=tools)
    assert not looks_like_unparsed_tool_call("functions.weather:\n{}", tool_names=tools)
    assert looks_like_unparsed_tool_call("functions.budget_lookup:\n{}", tool_names=tools)
    assert looks_like_unparsed_tool_call('[budget_lookup] {"projectId": "P-17"}', tool_names=tools)
    assert not looks_like_unparsed_tool_call('[weather] {"city": "Paris"}', tool_names=tools)


def test_e6_long_answer_scan_is_bounded() -> None:
    noise = "{} " * 10_000
    assert not looks_like_unparsed_tool_call(noise + CALL)  # past the bound: not scanned, no hang
    assert looks_like_unparsed_tool_call("{} " * 10 + CALL)
