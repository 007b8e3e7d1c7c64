"""Running the scripted server: in the foreground (the CLI) or on a background thread (tests)."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

from harness.models._scripted_call import ResolveModel, count_tokens

from ._app import ScriptedApp
from ._config import LOOPBACK, ServerConfig


class ScriptedServer:
    """One server on 127.0.0.1; ``start`` returns the bound port (a free one when port is 0)."""

    def __init__(self, config: ServerConfig, resolve_model: ResolveModel) -> None:
        self.config = config
        self.app = ScriptedApp(config, resolve_model)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    async def start(self) -> int:
        count_tokens([{"role": "user", "content": "warm up"}], [], "ok", [])  # load the tokenizer now
        # handler_cancellation: a client that hangs up (e.g. on an injected timeout) frees its handler.
        runner = web.AppRunner(self.app.build(), handler_cancellation=True, access_log=None,
                               shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, LOOPBACK, self.config.port)
        await site.start()
        self._runner = runner
        server = site._server
        sockets: Any = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1]) if sockets else self.config.port
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


async def serve_forever(
    config: ServerConfig, resolve_model: ResolveModel, on_ready: Callable[[str], None] | None = None
) -> None:
    """Serve until SIGINT (Ctrl-C) or SIGTERM, or until cancelled."""
    server = ScriptedServer(config, resolve_model)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
        except (RuntimeError, NotImplementedError, ValueError):  # not the main thread / platform
            pass
    try:
        if on_ready is not None:
            on_ready(server.base_url)
        await stop.wait()
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        await server.stop()


@contextmanager
def running_server(
    config: ServerConfig | None = None, *, resolve_model: ResolveModel, **settings: Any
) -> Iterator[str]:
    """Run a server on a background thread for the duration; yields its base URL
    (``http://127.0.0.1:PORT/v1``, usable as litellm ``api_base``). ``resolve_model`` names the
    scripted models it serves (``harness.scripted.get_scripted``); ``settings`` are
    ``ServerConfig`` fields, applied over ``config``."""
    merged = ServerConfig.model_validate({**(config.model_dump() if config else {}), **settings})
    server = ScriptedServer(merged, resolve_model)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="scripted-server", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=60)
        yield server.base_url
    finally:
        try:
            asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=30)
            loop.close()


def fetch_stats(base_url: str) -> dict[str, Any]:
    """``GET /stats`` of a running server (requests served, faults injected, peak concurrency)."""
    import httpx

    response = httpx.get(base_url.rstrip("/") + "/stats", timeout=10)
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data
