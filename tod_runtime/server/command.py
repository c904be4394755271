"""``tod serve``: run the HTTP/WebSocket server (aiohttp is imported only when it runs).

SIGTERM or Ctrl-C stop it gracefully: the listener closes, turns in flight finish (each
turn's events are appended in one go at its end, so nothing is half-written), WebSockets are
closed, then the store and backend are closed."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _cmd_serve(args: argparse.Namespace) -> int:
    from aiohttp import web

    from tod_runtime.default_commands import config_from_args
    from tod_runtime.server.app import ServeSettings, create_app

    extra: dict[str, Any] = {"services": args.services, "store": args.store}
    extra |= {"session_ttl": args.session_ttl, "max_turns_per_session": args.max_turns}
    config = config_from_args(args, **extra)
    settings = ServeSettings(
        host=args.host,
        port=args.port,
        token=args.token,
        cors_origins=args.cors_origin or [],
        max_body_bytes=args.max_body,
    )
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


def add_serve_command(sub: argparse._SubParsersAction[Any]) -> None:
    from tod_runtime.default_commands import add_pipeline_options

    serve = sub.add_parser("serve", help="serve the runtime over HTTP and WebSocket")
    serve.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default: 8080)")
    serve.add_argument(
        "--store", metavar="URL", help="memory:// (default), sqlite:///FILE, redis://HOST:PORT"
    )
    serve.add_argument("--token", metavar="T", help="require 'Authorization: Bearer T' on /v1")
    serve.add_argument(
        "--services",
        metavar="DIR|SGD_DIR:split",
        help="services folder, or an SGD split (default: the embedded services)",
    )
    serve.add_argument(
        "--session-ttl", type=float, metavar="SECONDS", help="delete sessions idle this long"
    )
    serve.add_argument("--max-turns", type=int, metavar="N", help="turns a session may hold")
    serve.add_argument(
        "--max-body", type=int, default=64 * 1024, metavar="BYTES", help="request size limit"
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="allow this origin cross-origin (repeatable; default: none)",
    )
    add_pipeline_options(serve)
    serve.set_defaults(func=_cmd_serve)
