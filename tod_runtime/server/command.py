"""``tod serve``: run the HTTP/WebSocket server (aiohttp is imported only when it runs).

SIGTERM or Ctrl-C stop it gracefully: the listener closes, turns in flight finish (each
turn's events are appended in one go at its end, so nothing is half-written), WebSockets are
closed, then the store and backend are closed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tod_runtime.config import Config
    from tod_runtime.server.base import ServeSettings


def run_serve(config: Config, settings: ServeSettings) -> int:
    """Serve until SIGTERM or Ctrl-C (called by ``tod serve``)."""
    from aiohttp import web

    from tod_runtime.server.app import create_app

    app = create_app(config, settings)

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
