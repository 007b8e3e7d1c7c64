"""Asking a local server what it renders (P-80): what it is, how it renders a body, what the prompt makes of
the state message, and the verdicts that replace the table's "unknown" for an unasked local server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from harness.models import ModelRequest
from harness.preflight import LocalServer, local_server, preflight
from harness.preflight._server import quote, read_prompt, root_of
from protocols import resolve
from tests.helpers.emulators import GEMMA, LlamaCppEmulator, VllmEmulator, running_app
from tests.helpers.wire_requests import GROUPS, group_request

STATE = "[context_state] where the host stands\n{\"windowId\": \"main\"}"


def check(group: str, server: LocalServer) -> Any:
    request = group_request(group)
    sent = ModelRequest(messages=request.messages, tools=request.tools, max_output_tokens=64)
    return preflight(resolve(*GROUPS[group]), "openai/qwen", server.api_base, request=sent, server=server)


@pytest.fixture()
def llama() -> Iterator[tuple[LlamaCppEmulator, LocalServer]]:
    emulator = LlamaCppEmulator()
    with running_app(emulator.app) as url:
        yield emulator, LocalServer(url + "/v1")


def test_the_verdict_comes_from_the_rendered_prompt(llama: tuple[LlamaCppEmulator, LocalServer]) -> None:
    emulator, server = llama
    a, b, v1 = check("A", server), check("B", server), check("v1", server)
    assert (a.verdict, a.rule, a.treatment) == ("prefill", "local-template-prefill", "prefill")
    assert (b.verdict, b.treatment) == ("ok", "own_message") and b.treatmentRule == "local-template-own-message"
    assert v1.treatment is None and v1.rendered[0].reading == "own_message"  # no state: the template took it
    assert (v1.verdict, v1.rule) == ("ok", None)  # the server answered what the unasked roles rule could not
    assert a.localServer is not None and a.localServer.kind == "llama.cpp" and a.localServer.renders
    assert a.rendered[0].tail is not None and a.rendered[0].prompt is not None
    assert a.rendered[0].prompt.endswith(a.rendered[0].tail) and "prompt" not in a.model_dump()["rendered"][0]
    assert emulator.counts == {"/props": 1, "/apply-template": 3}  # identified once, one rendering per request


def test_a_template_refusal_is_rejected_with_its_error() -> None:
    emulator = LlamaCppEmulator(template=GEMMA)
    with running_app(emulator.app) as url:
        c = check("C", LocalServer(url + "/v1"))
    assert (c.verdict, c.rule, c.treatment) == ("rejected", "local-template-rejected", "rejected")
    assert c.treatmentDetail is not None and "HTTP 500: Jinja Exception: Conversation roles must alternate" \
        in c.treatmentDetail


def test_vllm_renders_by_tokenize_and_reads_a_trailing_assistant_as_a_new_turn() -> None:
    emulator = VllmEmulator()
    with running_app(emulator.app) as url:
        server = LocalServer(url + "/v1")
        a, c = check("A", server), check("C", server)
    assert server.about().kind == "vllm" and server.about().buildInfo == "0.16.0"
    assert (a.verdict, a.treatment, a.rule) == ("ok", "new_turn", "local-template-new-turn")
    assert c.treatment == "own_message" and a.rendered[0].endpoint == "POST /tokenize"
    assert emulator.counts["/tokenize"] == emulator.counts["/detokenize"] == 2 and emulator.counts["/version"] == 1
    with running_app(VllmEmulator(template=GEMMA).app) as url:
        refused = check("A", LocalServer(url + "/v1"))
    assert refused.verdict == "rejected" and refused.treatmentDetail is not None
    # vLLM hands the template every message as sent: Gemma 2's refuses the system message first
    assert "HTTP 400: System role not supported" in refused.treatmentDetail


def test_a_server_that_renders_nothing_leaves_unknown_and_says_why_once() -> None:
    with running_app(web.Application) as url:
        server = LocalServer(url + "/v1")
        a, c = check("A", server), check("C", server)
    assert (a.verdict, a.rule) == ("unknown", "local-server-unrendered") and a.rendered == []
    assert a.localServer is not None and "answers none of GET /props" in a.localServer.message
    assert a.localServer.message not in a.message  # said once, in localServer, not per group
    # C's state follows the user's input (and, in a tool loop, a tool result): whether the template takes two user
    # messages in a row is the template's to say too (local-server-roles-template), so C stays unknown as well
    assert c.rule == "local-server-unrendered" and c.treatment == "unknown"
    assert server.asked == 3  # /props, /version, /get_model_info: once for the run


def test_nothing_listening_is_unknown_without_waiting() -> None:
    server = LocalServer("http://127.0.0.1:9/v1", timeout=2)
    assert server.about().kind == "unknown" and server.about().detectedBy == "no answer"
    assert server.render({"messages": []}) is None


def test_only_loopback_servers_are_asked() -> None:
    assert local_server("openai/qwen", "http://127.0.0.1:8080/v1") is not None
    assert local_server("openai/qwen", "http://localhost:8080") is not None
    assert local_server("openai/gpt-4o", "https://api.openai.com/v1") is None
    assert local_server("scripted/oracle", "http://127.0.0.1:8080/v1") is None
    assert local_server("openai/qwen", None) is None
    assert root_of("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080"
    assert root_of("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"


@pytest.mark.parametrize(("prompt", "messages", "reading"), [
    ("<|im_start|>assistant\n" + STATE, [{"role": "user", "content": "q"}, {"role": "assistant", "content": STATE}],
     "prefill"),
    (STATE + "<|im_end|>\n<|im_start|>assistant\n",
     [{"role": "user", "content": "q"}, {"role": "assistant", "content": STATE}], "new_turn"),
    ("<s>[INST] q\n" + STATE + " [/INST]",  # a template that joins two user messages
     [{"role": "user", "content": "q"}, {"role": "user", "content": STATE}, {"role": "user", "content": "z"}],
     "merged"),
    ("<user>q</user><user>" + STATE + "</user><user>z</user>",  # turn markers on both sides
     [{"role": "user", "content": "q"}, {"role": "user", "content": STATE}, {"role": "user", "content": "z"}],
     "own_message"),
    ("<user>q</user>", [{"role": "user", "content": "q"}, {"role": "assistant", "content": STATE}],
     "unknown"),  # the template dropped the state text
])
def test_reading_a_prompt(prompt: str, messages: list[dict[str, Any]], reading: str) -> None:
    assert read_prompt(prompt, messages)[0] == reading


def test_a_multi_line_server_error_is_quoted_in_one_line() -> None:
    message = ("Unable to generate parser for this template. Automatic parser generation failed: \n------------\n"
               "While executing CallExpression at line 1, column 226 in source:\n...{{ raise_exception('…') }}\n"
               "      ^\nError: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...")
    assert quote(message) == ("Unable to generate parser for this template. Automatic parser generation failed: … "
                              "Error: Jinja Exception: Conversation roles must alternate "
                              "user/assistant/user/assistant/...")
    assert quote("one line") == "one line"


def test_each_reading_is_its_rule() -> None:
    from harness.preflight import Rendering
    from harness.preflight._server import ServerInfo, rendered_verdicts
    from harness.wire import analyze_wire, preflight_body, request_wire_body

    request = group_request("C")
    body = request_wire_body("openai/qwen", ModelRequest(messages=request.messages, tools=request.tools,
                                                         max_output_tokens=64), "http://127.0.0.1:1/v1")
    wire = analyze_wire(body)
    about = ServerInfo(apiBase="http://127.0.0.1:1/v1", kind="llama.cpp", detectedBy="GET /props", renders="x",
                       message="m")
    for reading, rule, kind in [("merged", "local-template-merged", "merged"),
                                ("own_message", "local-template-own-message", "ok"),
                                ("rejected", "local-template-rejected", "rejected")]:
        rendering = Rendering(request="first", endpoint="POST /apply-template", reading=reading, detail="d")
        verdicts = rendered_verdicts(preflight_body("openai/qwen", body, local=True), rendering, wire, about)
        assert [(v.rule, v.kind, v.treatment) for v in verdicts] == [(rule, kind, reading)]
        assert verdicts[0].turn == (None if reading == "rejected" else wire.state.turn if wire.state else None)
