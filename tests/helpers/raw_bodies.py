"""The bytes a loopback server received: an aiohttp middleware that keeps each request's raw body (method, path
and body, in arrival order) before the app's own handler reads it, so a test compares what went over the wire
byte for byte, not a decoded copy."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class RawBodies:
    received: list[tuple[str, bytes]] = field(default_factory=list)

    def around(self, build: Callable[[], web.Application]) -> Callable[[], web.Application]:
        """``build`` with this recorder in front of every handler (a ``running_app`` argument)."""

        def built() -> web.Application:
            app = build()
            app.middlewares.insert(0, self._middleware)
            return app

        return built

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "POST":
            self.received.append((request.path, await request.read()))  # aiohttp keeps it for the handler
        return await handler(request)
