"""The server's resource limits, in one place: open connections and how long a request may
take to arrive (``ConnectionGuard``, around each connection's protocol), requests per client
(``rate_middleware``), and a request body's read time (``read_body``).

Idle keep-alive connections are closed by aiohttp itself after ``idle_timeout`` (the
runner's ``keepalive_timeout``); sessions are capped in ``routes.create_session``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server

from tod_runtime.server.base import SETTINGS, ServeSettings, error_response

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_BUSY_BODY = b'{"error": "too many connections", "status": 503}'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BUSY_BODY)}\r\n\r\n".encode()
    + _BUSY_BODY
)


class ConnectionGuard:
    """The protocol factory of the listening socket, over aiohttp's server: at most
    ``max_connections`` open at once (one more gets a 503 and is closed), and a connection
    that has sent part of a request (its headers, slowly) gets ``read_timeout`` seconds to
    finish them, else it is closed. A request's body has its own limit (``read_body``); a
    WebSocket is not timed here."""

    def __init__(self, server: Server, settings: ServeSettings) -> None:
        self.server = server
        self.settings = settings
        self.open = 0
        self.refused = 0
        self.timed_out = 0

    def __call__(self) -> GuardedHandler:
        server: Any = self.server  # aiohttp's own factory builds its handler the same way
        return GuardedHandler(self, server, loop=server._loop, **server._kwargs)


class GuardedHandler(RequestHandler):
    """aiohttp's connection handler, counted and timed by its ``ConnectionGuard``."""

    def __init__(self, guard: ConnectionGuard, server: Server, **kwargs: Any) -> None:
        super().__init__(server, **kwargs)
        self.guard = guard
        self.counted = False
        self.since: float | None = None  # when the first byte of an unfinished request came
        self.seen = 0  # requests parsed by then
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        settings = self.guard.settings
        if settings.max_connections and self.guard.open >= settings.max_connections:
            self.guard.refused += 1
            if isinstance(transport, asyncio.WriteTransport):
                transport.write(BUSY)
            transport.close()
            return
        self.guard.open += 1
        self.counted = True
        self._watch()

    def _watch(self) -> None:
        if self.guard.settings.read_timeout > 0:
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(self.guard.settings.read_timeout / 2, self._check)

    def data_received(self, data: bytes) -> None:
        if self.since is None and not self._request_in_progress:
            self.since, self.seen = time.monotonic(), self._request_count
        super().data_received(data)

    def _check(self) -> None:
        if self.since is not None and (
            self._request_count != self.seen or self._request_in_progress
        ):
            self.since = None  # the request arrived whole
        limit = self.guard.settings.read_timeout
        slow = self.since is not None and time.monotonic() - self.since > limit
        if slow and not self._upgraded and self.transport is not None:
            self.guard.timed_out += 1
            self.transport.close()
            return
        self._watch()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.counted:
            self.guard.open -= 1
            self.counted = False
        super().connection_lost(exc)


class RateLimiter:
    """A token bucket per client address: ``rate`` requests a second, bursts of
    ``2 * rate``; buckets of clients gone quiet are dropped as the table grows."""

    def __init__(self, rate: float) -> None:
        self.rate, self.burst = rate, max(2 * rate, 1.0)
        self.buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at)

    def allow(self, client: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        tokens, at = self.buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if len(self.buckets) > 10_000:
            self._forget(now)
        if tokens < 1:
            self.buckets[client] = (tokens, now)
            return False
        self.buckets[client] = (tokens - 1, now)
        return True

    def _forget(self, now: float) -> None:
        full = self.burst / self.rate
        self.buckets = {c: v for c, v in self.buckets.items() if now - v[1] < full}


RATE = web.AppKey("rate", RateLimiter)


@web.middleware
async def rate_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """429 with Retry-After when a client (by address) sends more than ``client_rate``
    requests a second; /healthz is never limited."""
    if request.path != "/healthz" and not request.app[RATE].allow(request.remote or ""):
        response = error_response(429, "too many requests from this client")
        response.headers["Retry-After"] = "1"
        return response
    return await handler(request)


async def read_body(request: web.Request) -> bytes:
    """The request's body, within ``read_timeout`` seconds (a slow body is 408)."""
    timeout = request.app[SETTINGS].read_timeout
    try:
        return await asyncio.wait_for(request.read(), timeout if timeout > 0 else None)
    except TimeoutError:
        raise web.HTTPRequestTimeout(reason="the body took too long to arrive") from None
