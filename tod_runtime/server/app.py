"""The aiohttp app factory: resources in one ``cleanup_ctx``, typed app keys, and the
middlewares that make every answer JSON (errors included, never a traceback), check the bearer
token and keep CORS closed unless origins are configured."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import pluggy
from aiohttp import web
from aiohttp.typedefs import Middleware

from tod_runtime.config import Config
from tod_runtime.errors import TodError
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.runtime import Runtime
from tod_runtime.server.base import (
    PUBLIC_PATHS,
    PUBLIC_PREFIXES,
    RUNTIME,
    SETTINGS,
    SOCKETS,
    ServeSettings,
    Sockets,
    answer_of,
    error_response,
)
from tod_runtime.server.limits import (
    CONNECTIONS,
    RATE,
    TRUSTED,
    Connections,
    RateLimiter,
    arrival_middleware,
    rate_middleware,
    trusted_networks,
)
from tod_runtime.server.routes import add_routes

log = logging.getLogger("tod_runtime.server")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return error_response(exc.status, exc.reason)
    except TodError as exc:
        status, message = answer_of(exc)
        if status >= 500:
            log.error("%s %s failed: %s", request.method, request.path, exc)
        return error_response(status, message)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unexpected error in %s %s", request.method, request.path)
        return error_response(500, "internal error (the server log has the details)")


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[len("Bearer ") :]
    # browsers cannot set headers on a WebSocket: the query, on its route only (elsewhere a
    # token in a URL ends up in logs and histories)
    websocket = request.headers.get("Upgrade", "").lower() == "websocket"
    if websocket and request.path.endswith("/ws"):
        return request.query.get("access_token")
    return None


def _public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    token = request.app[SETTINGS].token
    if token and request.method != "OPTIONS" and not _public(request.path):
        given = _bearer(request)
        if given is None or not secrets.compare_digest(given.encode(), token.encode()):
            return error_response(401, "missing or wrong bearer token")
    return await handler(request)


@web.middleware
async def cors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    origin = request.headers.get("Origin")
    allowed = origin is not None and origin in request.app[SETTINGS].cors_origins
    if request.method == "OPTIONS" and allowed:
        response: web.StreamResponse = web.Response(status=204)
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
        response.headers["Access-Control-Max-Age"] = "600"
    else:
        response = await handler(request)
    if allowed and origin is not None and not response.prepared:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
    return response


async def _expire_loop(app: web.Application) -> None:
    runtime, settings = app[RUNTIME], app[SETTINGS]
    while True:
        await asyncio.sleep(settings.expire_every)
        try:
            gone = await runtime.store.expire(runtime.config.session_ttl)
        except TodError as exc:
            log.warning("expiring idle sessions failed: %s", exc)
            continue
        runtime.forget(gone)


def _resources(runtime: Runtime) -> Callable[[web.Application], AsyncIterator[None]]:
    async def resources(app: web.Application) -> AsyncIterator[None]:
        await runtime.start()
        sweeper = None
        if runtime.config.session_ttl > 0:
            sweeper = asyncio.create_task(_expire_loop(app))
        try:
            yield
        finally:
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
            await runtime.close()

    return resources


async def _close_sockets(app: web.Application) -> None:
    for ws in list(app[SOCKETS].open):
        await ws.close(message=b"server shutting down")


def create_app(
    config: Config | None = None,
    settings: ServeSettings | None = None,
    *,
    plugin_manager: pluggy.PluginManager | None = None,
    runtime: Runtime | None = None,
) -> web.Application:
    """The server over a new Runtime (or ``runtime``), started and closed with the app.
    Plugins add routes through the ``register_routes(app)`` hook."""
    settings = settings or ServeSettings()
    if runtime is None:
        config = config or Config()
        pm = plugin_manager or make_plugin_manager(config.plugins_dir)
        runtime = Runtime(config, plugin_manager=pm)
    # CORS and the token check only when configured: each middleware is a layer of every
    # request's call chain.
    middlewares: list[Middleware] = []
    if settings.read_timeout > 0:  # ends the header timer of a guarded connection
        middlewares.append(arrival_middleware)
    if settings.cors_origins:
        middlewares.append(cors_middleware)
    middlewares.append(errors_middleware)
    if settings.client_rate:
        middlewares.append(rate_middleware)
    if settings.token:
        middlewares.append(auth_middleware)
    app = web.Application(middlewares=middlewares, client_max_size=settings.max_body_bytes)
    app[RATE] = RateLimiter(settings.client_rate or 1.0)
    app[TRUSTED] = trusted_networks(settings.trusted_proxies)
    app[CONNECTIONS] = Connections()
    app[RUNTIME] = runtime
    app[SETTINGS] = settings
    app[SOCKETS] = Sockets()
    add_routes(app)
    runtime.pm.hook.register_routes(app=app)
    app.cleanup_ctx.append(_resources(runtime))
    app.on_shutdown.append(_close_sockets)
    return app
