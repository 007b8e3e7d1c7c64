"""``harness serve-scripted``: a scripted model over OpenAI-compatible HTTP on loopback (X-64, Q-22)."""

from __future__ import annotations

import asyncio

import typer

from ._app import EXIT_DEFECT, app, err_console, fail, plain


@app.command("serve-scripted")
def serve_scripted_cmd(
    port: int = typer.Option(0, "--port", help="TCP port on 127.0.0.1; 0 picks a free one (printed)."),
    model: str = typer.Option("oracle", "--model", help="Scripted model served when the request's "
                              "`model` field does not name one (e.g. `oracle` or `scripted/oracle`)."),
    latency_ms: float = typer.Option(0.0, "--latency-ms", help="Added latency per request."),
    fault_rate: float = typer.Option(0.0, "--fault-rate", help="Share of requests that get a fault (0-1)."),
    fault_kinds: str = typer.Option("429,500,timeout,drop,malformed", "--fault-kinds",
                                    help="Faults drawn at --fault-rate; also `context`: llama.cpp's HTTP 400 "
                                         "exceed_context_size_error (`--fault-rate 1 --fault-kinds context` refuses "
                                         "every completion as too long for the context)."),
    fault_schedule: str = typer.Option("", "--fault-schedule",
                                       help="Faults at fixed request numbers, e.g. `3:429,5:drop`."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fault draw (same seed, same faults)."),
    retry_after: float = typer.Option(1.0, "--retry-after", help="Retry-After seconds sent with a 429."),
    timeout_fault_s: float = typer.Option(30.0, "--timeout-fault-s",
                                          help="How long a `timeout` fault stalls before answering."),
    reject_trailing_assistant: bool = typer.Option(
        False, "--reject-trailing-assistant",
        help="Answer 400 'must end with a user message' to a request ending with an assistant message."),
    context_window: int | None = typer.Option(None, "--context-window",
                                              help="Answer 400 context_length_exceeded above this many tokens."),
    usage_scale: float = typer.Option(1.0, "--usage-scale",
                                      help="Report usage × this (e.g. 2: a tokenizer or chat template that counts "
                                           "twice litellm's estimate); completion tokens stay within max_tokens."),
    host: str = typer.Option("127.0.0.1", "--host", help="Only 127.0.0.1 is accepted (Q-22)."),
) -> None:
    """Serve a scripted model (OpenAI-compatible) on loopback until Ctrl-C; use it with
    `--model openai/<name> --api-base <printed URL>` and any non-empty API key."""
    from pydantic import ValidationError

    from harness.scripted import get_scripted
    from harness.server import ServerConfig, parse_fault_kinds, parse_fault_schedule, serve_forever

    try:
        config = ServerConfig(
            host=host, port=port, model=model, latency_ms=latency_ms, fault_rate=fault_rate,
            fault_kinds=parse_fault_kinds(fault_kinds), fault_schedule=parse_fault_schedule(fault_schedule),
            seed=seed, retry_after_s=retry_after, timeout_fault_s=timeout_fault_s,
            reject_trailing_assistant=reject_trailing_assistant, context_window_tokens=context_window,
            usage_scale=usage_scale,
        )
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc'])) or 'option'}: {e['msg']}" for e in exc.errors()))
    except ValueError as exc:
        fail(str(exc))

    def ready(base_url: str) -> None:
        typer.echo(base_url, err=False)
        err_console.print(f"serving scripted model [bold]{plain(config.model)}[/] at {base_url} (Ctrl-C to stop)",
                          highlight=False)

    try:
        asyncio.run(serve_forever(config, get_scripted, on_ready=ready))
        err_console.print("stopped")
    except KeyError:
        fail(f"unknown scripted model {model!r}")
    except ImportError as exc:  # harness.scripted missing: an installation defect
        fail(f"scripted models are not available: {exc}", code=EXIT_DEFECT)
    except OSError as exc:
        fail(f"cannot listen on 127.0.0.1:{port}: {exc}")
    except KeyboardInterrupt:
        err_console.print("stopped")
