"""``tod serve``: run the HTTP/WebSocket server (aiohttp is imported only when it runs).

SIGTERM or Ctrl-C stop it gracefully: the listener closes, turns in flight finish (each
turn's events are appended in one go at its end, so nothing is half-written), WebSockets are
closed, then the store and backend are closed."""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

    from tod_runtime.config import Config
    from tod_runtime.server.base import ServeSettings


async def freeze_long_lived_objects(app: web.Application) -> AsyncIterator[None]:
    """Keep the garbage collector's full collections short (each one stops every request
    while it walks every object it tracks, so its pause grows with the sessions held).

    What start-up built (modules, schemas, models, the services' data) and what survived a
    full collection (mostly the sessions' folded history) is long-lived: it is frozen
    (``gc.freeze``), so the next full collection walks only what came since, and a full
    collection may run after every other young one (threshold 1 instead of 10), so it never
    has much to walk. Frozen objects are still freed when nothing refers to them (a deleted
    session); only a reference cycle that was alive at a freeze and became garbage later is
    never collected (the server makes almost none: docs/serving.md has the count measured)."""
    loop = asyncio.get_running_loop()

    def after_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2 and not loop.is_closed():
            loop.call_soon_threadsafe(gc.freeze)  # a collection may run in any thread

    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(thresholds[0], thresholds[1], 1)
    gc.callbacks.append(after_collection)
    try:
        yield
    finally:
        gc.callbacks.remove(after_collection)
        gc.set_threshold(*thresholds)


FLAGS = {"port": "--port", "max_body_bytes": "--max-body", "host": "--host", "token": "--token"}


def serve_settings(args: argparse.Namespace) -> ServeSettings:
    """``tod serve``'s flags as ServeSettings; a value out of range is a usage error naming
    its flag (exit 2)."""
    from pydantic import ValidationError

    from tod_runtime.errors import ConfigError
    from tod_runtime.server.base import ServeSettings

    try:
        return ServeSettings(
            host=args.host,
            port=args.port,
            token=args.token,
            cors_origins=args.cors_origin or [],
            max_body_bytes=args.max_body,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        flag = FLAGS.get(field, field)
        raise ConfigError(f"{flag}: {error['msg']}", hint="see tod serve --help") from None


def run_serve(config: Config, settings: ServeSettings) -> int:
    """Serve until SIGTERM or Ctrl-C (called by ``tod serve``)."""
    from aiohttp import web

    from tod_runtime.server.app import create_app

    app = create_app(config, settings)
    app.cleanup_ctx.append(freeze_long_lived_objects)  # after the runtime's start

    def started(*_: Any) -> None:
        print(f"tod serve: http://{settings.host}:{settings.port}/", file=sys.stderr, flush=True)

    web.run_app(
        app,
        host=settings.host,
        port=settings.port,
        print=started,
        access_log=None,
        shutdown_timeout=max(config.turn_timeout, 5.0) + 5.0,
        handle_signals=True,
    )
    return 0
