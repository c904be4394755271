"""The server's resource limits, in one place: open connections and how long a request's
headers may take to arrive (``ConnectionGuard``, around each connection's protocol, with
``arrival_middleware`` telling it when a request arrived), requests per client
(``rate_middleware``, by address or, behind trusted proxies, by ``X-Forwarded-For``), and a
request body's read time (``read_body``).

Only aiohttp's public API is used: the guard wraps the protocol that the runner's server
(``AppRunner.server``, a protocol factory) makes for each connection, and learns that a
request's headers were parsed when the app's first middleware runs for it.

Idle keep-alive connections are closed by aiohttp itself after ``idle_timeout`` (the
runner's ``keepalive_timeout``); sessions are capped in ``routes.create_session``."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from tod_runtime.server.base import (
    SETTINGS,
    Network,
    ServeSettings,
    error_response,
    proxy_network,
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_BUSY_BODY = b'{"error": "too many connections", "status": 503}'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BUSY_BODY)}\r\n\r\n".encode()
    + _BUSY_BODY
)


class Connections:
    """The guarded connections of one app, by transport: how ``arrival_middleware`` finds
    the connection of a request (empty when the app is served without a guard)."""

    def __init__(self) -> None:
        self.by_transport: dict[asyncio.BaseTransport, GuardedConnection] = {}


CONNECTIONS = web.AppKey("connections", Connections)


class ConnectionGuard:
    """The protocol factory of the listening socket, over ``runner.server``: at most
    ``max_connections`` open at once (one more gets a 503 and is closed), and a connection
    that has sent the first bytes of a request gets ``read_timeout`` seconds until its
    headers are parsed (the app's ``arrival_middleware`` runs), else it is closed. Bytes
    that come while a request is being handled are its body (which has its own limit,
    ``read_body``) or a pipelined request (bounded by aiohttp's ``idle_timeout``); a
    WebSocket is not timed here."""

    def __init__(self, runner: web.BaseRunner, settings: ServeSettings) -> None:
        if runner.server is None:
            raise RuntimeError("the runner is not set up")
        self.factory: Callable[[], asyncio.Protocol] = runner.server
        self.connections = runner.app[CONNECTIONS] if isinstance(runner, web.AppRunner) else None
        self.settings = settings
        self.open = 0
        self.refused = 0
        self.timed_out = 0

    def __call__(self) -> GuardedConnection:
        return GuardedConnection(self)


class GuardedConnection(asyncio.Protocol):
    """One connection: counted and timed by its ``ConnectionGuard``; everything else is
    passed to aiohttp's protocol (made only for a connection under the cap)."""

    def __init__(self, guard: ConnectionGuard) -> None:
        self.guard = guard
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.BaseTransport | None = None
        self.since: float | None = None  # when the first byte of an unparsed request came
        self.busy = 0  # requests being handled
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        settings = self.guard.settings
        if settings.max_connections and self.guard.open >= settings.max_connections:
            self.guard.refused += 1
            if isinstance(transport, asyncio.WriteTransport):
                transport.write(BUSY)
            transport.close()
            return
        self.guard.open += 1
        self.transport = transport
        if self.guard.connections is not None:
            self.guard.connections.by_transport[transport] = self
        self.inner = self.guard.factory()
        self.inner.connection_made(transport)
        self._watch()

    def _watch(self) -> None:
        if self.guard.settings.read_timeout > 0:
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(self.guard.settings.read_timeout / 2, self._check)

    def _check(self) -> None:
        limit = self.guard.settings.read_timeout
        if self.since is not None and time.monotonic() - self.since > limit:
            self.guard.timed_out += 1
            if self.transport is not None:
                self.transport.close()
            return
        self._watch()

    def arrived(self) -> None:
        """A request's headers were parsed: its handling starts."""
        self.since = None
        self.busy += 1

    def answered(self) -> None:
        """A request's handler returned: the next bytes start the next request."""
        self.busy -= 1

    def data_received(self, data: bytes) -> None:
        if self.since is None and not self.busy and data:
            self.since = time.monotonic()
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.inner is None:
            return  # refused
        self.guard.open -= 1
        if self.guard.connections is not None and self.transport is not None:
            self.guard.connections.by_transport.pop(self.transport, None)
        self.inner.connection_lost(exc)
        self.inner = None


@web.middleware
async def arrival_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tell the request's guarded connection (if any) that its headers arrived, and when
    its handler is done."""
    transport = request.transport
    by_transport = request.app[CONNECTIONS].by_transport
    connection = by_transport.get(transport) if transport is not None else None
    if connection is None:
        return await handler(request)
    connection.arrived()
    try:
        return await handler(request)
    finally:
        connection.answered()


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


def trusted_networks(proxies: list[str]) -> tuple[Network, ...]:
    """``--trusted-proxy`` values as networks, read by ``base.proxy_network`` (a value that
    is not an address or network, or has host bits set, is a ValueError)."""
    return tuple(proxy_network(proxy) for proxy in proxies)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_of(peer: str, forwarded_for: list[str], networks: tuple[Network, ...]) -> str:
    """The client a request counts for: its peer address, unless the peer is a trusted
    proxy; then the ``X-Forwarded-For`` chain is read from its right end (the address the
    trusted proxy itself appended) leftward past other trusted proxies, and the first
    address not trusted is the client. What a client writes into the header itself lies
    to the left of that, so it cannot pick its own bucket."""
    if not networks or not _trusted(peer, networks):
        return peer
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",")]
    client = peer
    for hop in reversed([hop for hop in hops if hop]):
        client = hop
        if not _trusted(hop, networks):
            break
    return client


TRUSTED = web.AppKey("trusted", tuple)


@web.middleware
async def rate_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """429 with Retry-After when a client (by address; see ``client_of``) sends more than
    ``client_rate`` requests a second; /healthz is never limited."""
    if request.path != "/healthz":
        forwarded = request.headers.getall("X-Forwarded-For", [])
        client = client_of(request.remote or "", forwarded, request.app[TRUSTED])
        if not request.app[RATE].allow(client):
            response = error_response(429, "too many requests from this client")
            response.headers["Retry-After"] = "1"
            return response
    return await handler(request)


async def read_body(request: web.Request) -> bytes:
    """The request's body, within ``read_timeout`` seconds (a slow body is 408); timed with
    ``asyncio.timeout``, which needs no task of its own as ``wait_for`` does (Python 3.11)."""
    timeout = request.app[SETTINGS].read_timeout
    try:
        async with asyncio.timeout(timeout if timeout > 0 else None):
            return await request.read()
    except TimeoutError:
        raise web.HTTPRequestTimeout(reason="the body took too long to arrive") from None
