"""The llama.cpp server emulator, reached through litellm's real client (``openai/<alias>`` + ``/v1``) and
over plain HTTP for its own endpoints: it renders a real chat template as llama.cpp does and answers from
the rendered prompt."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from harness.models import ensure_litellm
from tests.helpers.emulators import GEMMA, LlamaCppEmulator, running_app
from tests.helpers.wire_requests import LOOKUP, group_request

Server = tuple[LlamaCppEmulator, str]


def serve(**options: Any) -> Iterator[Server]:
    emulator = LlamaCppEmulator(**options)
    with running_app(emulator.app) as url:
        yield emulator, url


@pytest.fixture()
def prefilling() -> Iterator[Server]:
    yield from serve()


@pytest.fixture()
def no_prefill() -> Iterator[Server]:
    yield from serve(prefill_assistant=False)


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def chat(url: str, group: str, text: str = "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？") -> Any:
    litellm, _ = ensure_litellm()
    request = group_request(group, text)
    return asyncio.run(litellm.acompletion(model="openai/qwen", api_base=url + "/v1", api_key="local",
                                           messages=request.messages, tools=request.tools, max_tokens=256,
                                           timeout=10, num_retries=0))


def test_a_is_a_prefill_by_default_and_a_new_turn_without(prefilling: Server, no_prefill: Server) -> None:
    request = group_request("A")
    state = request.messages[-1]["content"]
    _, default = post(prefilling[1] + "/apply-template", {"messages": request.messages, "tools": request.tools})
    _, full = post(no_prefill[1] + "/apply-template", {"messages": request.messages, "tools": request.tools})
    assert default["prompt"].endswith("<|im_start|>assistant\n" + state)  # inside the state, no <|im_end|>
    assert full["prompt"].endswith(state + "<|im_end|>\n<|im_start|>assistant\n")


def test_chat_answers_are_decided_from_the_rendered_prompt(prefilling: Server, no_prefill: Server) -> None:
    continued = chat(prefilling[1], "A").choices[0].message.content
    answered = chat(no_prefill[1], "A").choices[0].message.content
    assert continued.startswith('{"windowId"') and "7650" not in continued  # the state written out again
    assert "7650" in answered
    assert "7650" in chat(prefilling[1], "C").choices[0].message.content  # C ends with a user message


def test_a_tool_call_in_a_new_turn(no_prefill: Server) -> None:
    message = chat(no_prefill[1], "B", LOOKUP).choices[0].message
    assert message.tool_calls[0].function.name == "budget_lookup"


def test_llama_cpp_refusals(prefilling: Server) -> None:
    emulator, url = prefilling
    two = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"},
           {"role": "assistant", "content": "b"}]
    assert post(url + "/apply-template", {"messages": two}) == (400, {"error": {
        "code": 400, "message": "Cannot have 2 or more assistant messages at the end of the list.",
        "type": "invalid_request_error"}})
    thinking = {"messages": two[:2], "chat_template_kwargs": {"enable_thinking": True}}
    assert post(url + "/apply-template", thinking)[1]["error"]["message"] == \
        "Assistant response prefill is incompatible with enable_thinking."
    assert post(url + "/apply-template", {"messages": [{"role": "user"}]})[0] == 400
    with urllib.request.urlopen(url + "/props", timeout=10) as response:
        props = json.loads(response.read())
    assert props["chat_template"] == emulator.template and "prefill" not in json.dumps(props)  # as llama.cpp's


def test_gemma_template_refuses_with_llama_cpp_500() -> None:
    for emulator, url in serve(template=GEMMA):
        status, body = post(url + "/v1/chat/completions", {"messages": group_request("C").messages})
        assert status == 500 and body == {"error": {
            "code": 500, "type": "server_error",
            "message": "Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/..."}}
        ok = [{"role": "system", "content": "s"}, {"role": "user", "content": "还剩多少？"}]
        status, rendered = post(url + "/apply-template", {"messages": ok})  # the system merged into the user turn
        assert status == 200 and rendered["prompt"] == "<bos><start_of_turn>user\ns\n还剩多少？<end_of_turn>\n" \
                                                       "<start_of_turn>model\n"
        assert emulator.counts["/v1/chat/completions"] == 1 and emulator.rejections
