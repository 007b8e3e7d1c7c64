"""``harness render``: the provider request a protocol builds for a state file (O-40)."""

from __future__ import annotations

from typing import Annotated

import typer

from protocols import read_state_file, resolve_ref

from ._app import app, parse_options, print_json, user_errors


@app.command("render")
def render_cmd(
    state: Annotated[str, typer.Argument(metavar="STATE.json", help="State file of one session (O-40).")],
    protocol: Annotated[str, typer.Option("--protocol", help="Protocol, e.g. unified@3.")],
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Protocol option KEY=VALUE, repeatable, e.g. stateMessagePlacement=trailing_user.")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="A litellm model string: add a provider preflight saying what this model makes of "
                        "the request's last message (prefill, rejection, new turn).")] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", help="Server the model is served from.")] = None,
) -> None:
    """Print {"messages", "sources", "tools"}: the request exactly as handed to litellm, one source per message.

    The same state and options always give the same request, byte for byte (P-20). A state the
    protocol cannot project (broken tool pairing, unknown window) exits 2 with the reason.

    Example: harness render --protocol unified@3 --option stateMessagePlacement=trailing_user state.json
    """
    with user_errors():
        proto = resolve_ref(protocol, parse_options(option))
        loaded = read_state_file(state)
        request = proto.project(loaded.store, loaded.session_id, loaded.frozen, loaded.agent)
    out = request.wire()
    if model is not None:
        from harness.preflight import preflight

        out["preflight"] = preflight(proto, model, api_base).model_dump()
    print_json(out)
