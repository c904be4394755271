"""``tod serve``: run the HTTP/WebSocket server (aiohttp is imported only when it runs).

SIGTERM or Ctrl-C stop it gracefully: the listener closes, turns in flight finish (each
turn's events are appended in one go at its end, so nothing is half-written), WebSockets are
closed, then the store and backend are closed; the exit status is then 143 (SIGTERM) or 130
(Ctrl-C), as for every command. ``--workers N`` forks N such processes on one port."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

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


FLAGS = {
    "port": "--port",
    "max_body_bytes": "--max-body",
    "host": "--host",
    "token": "--token",
    "max_sessions": "--max-sessions",
    "max_connections": "--max-connections",
    "idle_timeout": "--idle-timeout",
    "read_timeout": "--read-timeout",
    "client_rate": "--client-rate",
    "workers": "--workers",
    "trusted_proxies": "--trusted-proxy",
}
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def add_serve_flags(serve: argparse.ArgumentParser) -> None:
    """The flags of the server's own settings beyond the first few (limits, the token's
    other sources, processes); defaults are ServeSettings'."""
    from tod_runtime.server.base import ServeSettings

    fields = ServeSettings.model_fields
    serve.add_argument(
        "--token-file",
        metavar="FILE",
        help="read the bearer token from FILE (also: the TOD_TOKEN environment variable)",
    )
    serve.add_argument(
        "--trusted-proxy",
        dest="trusted_proxies",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy's address or network (repeatable): requests from it are rate-"
        "limited by the client its X-Forwarded-For names (default: none, by peer address)",
    )
    for flag, name, kind, what in (
        ("--max-sessions", "max_sessions", int, "sessions the store may hold; 0: no limit"),
        ("--max-connections", "max_connections", int, "open connections; 0: no limit"),
        ("--idle-timeout", "idle_timeout", float, "seconds an idle connection stays open"),
        ("--read-timeout", "read_timeout", float, "seconds for a request's headers, its body"),
        ("--client-rate", "client_rate", float, "requests a second per client; 0: no limit"),
        ("--workers", "workers", int, "processes sharing the port (a shared store needed)"),
    ):
        default = fields[name].default
        serve.add_argument(
            flag, type=kind, default=default, metavar="N", help=f"{what} (default: {default})"
        )


def _token(args: argparse.Namespace) -> str | None:
    """--token, else --token-file's first line, else $TOD_TOKEN (not in `ps` either way)."""
    from tod_runtime.errors import ConfigError, IOFailure

    file = getattr(args, "token_file", None)
    if args.token is not None and file:
        raise ConfigError("give --token or --token-file, not both")
    if file:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise IOFailure(f"cannot read the token file: {exc}", file=file) from None
        token = text.strip()
        if not token:
            raise ConfigError("the token file is empty", file=file)
        return token
    if args.token is not None:
        return str(args.token)
    return os.environ.get("TOD_TOKEN") or None


def serve_settings(args: argparse.Namespace) -> ServeSettings:
    """``tod serve``'s flags as ServeSettings; a value out of range is a usage error naming
    its flag (exit 2)."""
    from pydantic import ValidationError

    from tod_runtime.errors import ConfigError
    from tod_runtime.server.base import ServeSettings

    given = {
        "host": args.host,
        "port": args.port,
        "token": _token(args),
        "cors_origins": args.cors_origin or [],
        "max_body_bytes": args.max_body,
    }
    given |= {n: getattr(args, n) for n in FLAGS if n not in given and hasattr(args, n)}
    try:
        return ServeSettings(**given)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        flag = FLAGS.get(field, field)
        cause = error.get("ctx", {}).get("error")  # a validator's own ValueError
        message = str(cause) if isinstance(cause, ValueError) else error["msg"]
        raise ConfigError(f"{flag}: {message}", hint="see tod serve --help") from None


def _check(config: Config, settings: ServeSettings) -> None:
    from tod_runtime.errors import ConfigError

    if settings.workers > 1 and config.store.startswith("memory"):
        raise ConfigError(
            "--workers needs a store the processes share",
            hint="--store sqlite:///sessions.db or redis://HOST:PORT/0",
        )
    if settings.token is None and settings.host not in LOOPBACK:
        print(
            f"tod serve: warning: listening on {settings.host} without a token: anyone who "
            "can reach it may read and delete sessions (--token-file FILE or TOD_TOKEN; see "
            "docs/serving.md#deployment)",
            file=sys.stderr,
            flush=True,
        )


def run_serve(config: Config, settings: ServeSettings) -> int:
    """Serve until SIGTERM (exit 143) or Ctrl-C (130), called by ``tod serve``; with
    ``--workers N``, N processes on the port (SO_REUSEPORT), stopped together."""
    _check(config, settings)
    if settings.workers == 1:
        return _serve_one(config, settings, reuse_port=False)
    import multiprocessing

    context = multiprocessing.get_context("fork")  # nothing started yet: no thread, no loop
    workers = [
        context.Process(target=_worker, args=(config, settings), daemon=False)
        for _ in range(settings.workers)
    ]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            worker.join()
    finally:  # SIGTERM or Ctrl-C here: raised by the CLI's handlers; stop them all
        for worker in workers:
            if worker.is_alive() and worker.pid is not None:
                os.kill(worker.pid, signal.SIGTERM)
        for worker in workers:
            worker.join()
    codes = {w.exitcode for w in workers}
    return max(code for code in codes if code is not None) if codes - {None} else 0


def _worker(config: Config, settings: ServeSettings) -> None:
    sys.exit(_serve_one(config, settings, reuse_port=True))


def _serve_one(config: Config, settings: ServeSettings, *, reuse_port: bool) -> int:
    from tod_runtime.server.app import create_app

    app = create_app(config, settings)
    app.cleanup_ctx.append(freeze_long_lived_objects)  # after the runtime's start
    shutdown = max(config.turn_timeout, 5.0) + 5.0
    return asyncio.run(_serve(app, settings, shutdown, reuse_port))


async def _serve(
    app: web.Application, settings: ServeSettings, shutdown: float, reuse: bool
) -> int:
    """Listen until a signal; then stop listening, let turns in flight finish, close."""
    from aiohttp import web

    from tod_runtime.server.limits import ConnectionGuard

    loop = asyncio.get_running_loop()
    stop, got = asyncio.Event(), list[int]()

    def on_signal(signum: int) -> None:
        got.append(signum)
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    runner = web.AppRunner(
        app,
        access_log=None,
        handle_signals=False,
        keepalive_timeout=settings.idle_timeout,
        shutdown_timeout=shutdown,
    )
    await runner.setup()
    try:
        server = await loop.create_server(
            ConnectionGuard(runner, settings),
            settings.host,
            settings.port,
            reuse_port=reuse or None,
            backlog=1024,
        )
    except OSError as exc:
        await runner.cleanup()
        from tod_runtime.errors import IOFailure

        where = f"{settings.host}:{settings.port}"
        raise IOFailure(f"cannot listen: {exc.strerror or exc}", file=where) from None
    print(f"tod serve: http://{settings.host}:{settings.port}/", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        server.close()  # no new connections; those open finish their turn
        await runner.cleanup()
        await server.wait_closed()
    return 128 + got[0] if got else 0
