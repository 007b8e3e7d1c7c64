"""Run an aiohttp app on 127.0.0.1 (an ephemeral port) on a background thread for the duration."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

LOOPBACK = "127.0.0.1"


@contextmanager
def running_app(build: Callable[[], web.Application]) -> Iterator[str]:
    """Yields ``http://127.0.0.1:PORT``; the server stops when the block ends."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="emulator", daemon=True)
    thread.start()
    runner = web.AppRunner(build(), access_log=None, shutdown_timeout=1.0)

    async def start() -> int:
        await runner.setup()
        site = web.TCPSite(runner, LOOPBACK, 0)
        await site.start()
        sockets: Any = getattr(site._server, "sockets", None) or []
        return int(sockets[0].getsockname()[1])

    try:
        port = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=30)
        yield f"http://{LOOPBACK}:{port}"
    finally:
        try:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=30)
            loop.close()
