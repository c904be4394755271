"""What the server's modules share: its settings, the typed app keys, JSON error answers."""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from tod_runtime.errors import InputError, TodError
from tod_runtime.runtime import Runtime
from tod_runtime.stores.base import LockTimeout, StoreConflict, StoreUnavailable


class ServeSettings(BaseModel):
    """What the server adds to the pipeline's Config (``tod serve`` flags)."""

    model_config = ConfigDict(extra="forbid")
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    token: str | None = Field(default=None, description="bearer token required on /v1/*")
    cors_origins: list[str] = Field(
        default_factory=list, description="origins allowed cross-origin (none: CORS closed)"
    )
    max_body_bytes: int = Field(default=64 * 1024, ge=256)
    expire_every: float = Field(
        default=60.0, gt=0, description="seconds between sweeps for idle sessions"
    )


RUNTIME = web.AppKey("runtime", Runtime)
SETTINGS = web.AppKey("settings", ServeSettings)


class Sockets:
    """The open WebSockets, closed at shutdown."""

    def __init__(self) -> None:
        self.open: set[web.WebSocketResponse] = set()


SOCKETS = web.AppKey("sockets", Sockets)
PUBLIC_PATHS = ("/", "/healthz", "/openapi.json")


STORE_UNAVAILABLE = "session store unavailable"
RETRY_AFTER = "1"  # seconds, on every 503


def error_response(status: int, message: str) -> web.Response:
    response = web.json_response({"error": message, "status": status}, status=status)
    if status == 503:
        response.headers["Retry-After"] = RETRY_AFTER
    return response


def answer_of(exc: TodError) -> tuple[int, str]:
    """The status and the one-line message a client gets for a project error. A store's
    failure is only "session store unavailable" (its message names the store, whose URL may
    hold a password: the server log has it in full), and no client message names a file."""
    status = status_of(exc)
    if isinstance(exc, StoreUnavailable):
        return status, STORE_UNAVAILABLE
    text = exc.message if exc.file else str(exc)
    return status, text.splitlines()[0] if text else type(exc).__name__


def status_of(exc: TodError) -> int:
    """The HTTP status of a project error: the caller's fault is 4xx, a plugin's is 500."""
    if isinstance(exc, StoreConflict):
        return 409
    if isinstance(exc, LockTimeout | StoreUnavailable):
        return 503
    if isinstance(exc, InputError):
        return 400
    return 500
