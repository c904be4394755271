"""``tod serve``: run the HTTP/WebSocket server (aiohttp is imported only when it runs).

SIGTERM or Ctrl-C stop it gracefully: the listener closes, turns in flight finish (each
turn's events are appended in one go at its end, so nothing is half-written), WebSockets are
closed, then the store and backend are closed."""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

    from tod_runtime.config import Config
    from tod_runtime.server.base import ServeSettings


async def freeze_startup_objects(app: web.Application) -> None:
    """What start-up built (modules, schemas, models, the services' data) lives as long as
    the server: move it out of the garbage collector's sight (``gc.freeze``), so a full
    collection, which stops every request while it runs, walks only what came later."""
    gc.collect()
    gc.freeze()


def run_serve(config: Config, settings: ServeSettings) -> int:
    """Serve until SIGTERM or Ctrl-C (called by ``tod serve``)."""
    from aiohttp import web

    from tod_runtime.server.app import create_app

    app = create_app(config, settings)
    app.on_startup.append(freeze_startup_objects)  # after the runtime's start (cleanup_ctx)

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
