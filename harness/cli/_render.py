"""``harness render``: the provider request a protocol builds for a state file (O-40)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app, parse_options, print_json, user_errors


@app.command("render")
def render_cmd(
    state: Annotated[str, typer.Argument(metavar="STATE.json", help="State file of one session (O-40).")],
    protocol: Annotated[str, typer.Option("--protocol", help="Protocol, e.g. unified@3.")],
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Protocol option KEY=VALUE, repeatable, e.g. stateMessagePlacement=trailing_user.")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="A litellm model string: add the provider preflight of this request's body, built offline "
                        "by litellm without any model call: the verdicts of the provider rules (rejected, prefill, "
                        "merged ...) with their sources, and the turns the provider receives.")] = None,
    api_base: Annotated[str | None, typer.Option(
        "--api-base", help="Server the model is served from. A loopback one (llama.cpp, vLLM) is asked how it "
                           "renders the request (llama.cpp POST /apply-template, vLLM POST /tokenize): its chat "
                           "template says whether the state message is a prefill, a new turn or refused.")] = None,
) -> None:
    """Print {"messages", "sources", "tools"}: the request exactly as handed to litellm, one source per message.

    The same state and options always give the same request, byte for byte (P-20). With --model,
    "preflight" says what that model's provider receives and does with it (P-80). A state the
    protocol cannot project (broken tool pairing, unknown window) exits 2 with the reason.

    Example: harness render --protocol unified@3 --option stateMessagePlacement=trailing_user state.json
    """
    from protocols import read_state_file, resolve_ref

    with user_errors():
        proto = resolve_ref(protocol, parse_options(option))
        loaded = read_state_file(state)
        request = proto.project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    out = request.wire()
    if model is not None:
        from harness.models import ModelRequest
        from harness.preflight import local_server, preflight

        sent = ModelRequest(messages=request.messages, tools=request.tools, max_output_tokens=1024)
        server = local_server(model, api_base)  # a loopback server is asked how it renders the body
        out["preflight"] = preflight(proto, model, api_base, request=sent, server=server).model_dump(mode="json")
    print_json(out)
