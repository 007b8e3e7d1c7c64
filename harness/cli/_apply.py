"""``harness apply``: run one tool call through the dispatcher against a state file (O-41)."""

from __future__ import annotations

import uuid
from typing import Annotated

import typer

from ._app import app, fail, parse_options, print_json, user_errors

_Options = Annotated[list[str] | None, typer.Option("--option", help="Protocol option KEY=VALUE "
                                                    "(repeatable).")]
_CallId = Annotated[str | None, typer.Option("--call-id", help="Tool call id (default: a fresh one); "
                                             "reuse one to replay its receipt (P-42).")]
_Revision = Annotated[int | None, typer.Option("--frozen-revision", help="KV revision the call saw "
                                               "(default: the state's kvRevision).")]
_Upper = Annotated[int | None, typer.Option("--upper-bound", help="Highest message index the call saw "
                                            "(default: the state's upperBound).")]


@app.command("apply")
def apply_cmd(
    state: Annotated[str, typer.Argument(metavar="STATE.json", help="State file of one session (O-40).")],
    protocol: Annotated[str, typer.Option("--protocol", help="Protocol, e.g. unified@2.")],
    tool: Annotated[str, typer.Option("--tool", help="Tool name, e.g. context_window_open.")],
    args: Annotated[str, typer.Option("--args", help="Tool arguments as the model would send them (JSON).")],
    option: _Options = None,
    call_id: _CallId = None,
    frozen_revision: _Revision = None,
    upper_bound: _Upper = None,
) -> None:
    """Dispatch one context tool call and print {"result": ..., "state": ...} (O-41).

    Bad tool arguments are the model's mistake and come back as a tool result (invalid_arguments);
    a bad state file, protocol, option, revision or upper bound exits 2.
    """
    from protocols import FrozenView, ToolCall, dump_state, read_state_file, resolve_ref

    with user_errors():
        proto = resolve_ref(protocol, parse_options(option))
        loaded = read_state_file(state)
    max_index = loaded.store.max_index(loaded.session_id)
    if frozen_revision is not None and frozen_revision < 0:
        fail(f"--frozen-revision {frozen_revision}: must be 0 or more")
    if upper_bound is not None and not 0 <= upper_bound <= max_index:
        fail(f"--upper-bound {upper_bound}: must be between 0 and the last message index {max_index}")
    frozen = FrozenView(
        revision=loaded.frozen.revision if frozen_revision is None else frozen_revision,
        upper_bound=loaded.frozen.upper_bound if upper_bound is None else upper_bound,
        run_id=loaded.frozen.run_id,
    )
    call = ToolCall(id=call_id or uuid.uuid4().hex, name=tool, arguments=args)
    result = proto.dispatch(loaded.store, loaded.session_id, call, frozen)
    next_state = dump_state(loaded.store, loaded.session_id, loaded.agent, loaded.frozen.run_id,
                            upper_bound=loaded.frozen.upper_bound)
    print_json({"result": result, "state": next_state})
