"""What the server's modules share: its settings, the typed app keys, JSON error answers."""

from __future__ import annotations

import ipaddress

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, field_validator

from tod_runtime.errors import InputError, TodError
from tod_runtime.runtime import Runtime
from tod_runtime.stores.base import (
    LockTimeout,
    SessionDeleted,
    StoreConflict,
    StoreUnavailable,
)


class ServeSettings(BaseModel):
    """What the server adds to the pipeline's Config (``tod serve`` flags)."""

    model_config = ConfigDict(extra="forbid")
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    token: str | None = Field(
        default=None, min_length=1, description="bearer token required on /v1/*"
    )
    cors_origins: list[str] = Field(
        default_factory=list, description="origins allowed cross-origin (none: CORS closed)"
    )
    max_body_bytes: int = Field(default=64 * 1024, ge=256)
    expire_every: float = Field(
        default=60.0, gt=0, description="seconds between sweeps for idle sessions"
    )
    max_sessions: int = Field(
        default=50_000, ge=0, description="sessions the store may hold (0: no limit)"
    )
    max_connections: int = Field(
        default=1000, ge=0, description="open connections per process (0: no limit)"
    )
    idle_timeout: float = Field(
        default=75.0, gt=0, description="seconds an idle keep-alive connection stays open"
    )
    read_timeout: float = Field(
        default=10.0, ge=0, description="seconds a request's headers, and its body, may take"
    )
    client_rate: float = Field(
        default=200.0, ge=0, description="requests a second per client address (0: no limit)"
    )
    workers: int = Field(default=1, ge=1, le=64, description="processes on the port")
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="proxy addresses or networks whose X-Forwarded-For names the client",
    )

    @field_validator("token")
    @classmethod
    def _no_blank_token(cls, token: str | None) -> str | None:
        if token is not None and not token.strip():
            raise ValueError("an empty or blank token would let everyone in")
        return token

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, proxies: list[str]) -> list[str]:
        for proxy in proxies:
            proxy_network(proxy)
        return proxies


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def proxy_network(value: str) -> Network:
    """A ``--trusted-proxy`` value (an address, a /32 or /128, or a network such as
    ``10.0.0.0/8``) as a network: the one parser of the setting. A ValueError names a
    value that is neither, and a network with host bits set (``10.0.0.1/8``), which would
    otherwise widen silently to the whole network, with the network form to write."""
    text = value.strip()
    try:
        return ipaddress.ip_network(text)
    except ValueError:
        pass
    try:
        wide = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address or network") from None
    raise ValueError(
        f"{value!r} has host bits set: write the network as {str(wide)!r}, "
        f"or the address alone for one proxy"
    )


RUNTIME = web.AppKey("runtime", Runtime)
SETTINGS = web.AppKey("settings", ServeSettings)


class Sockets:
    """The open WebSockets, closed at shutdown."""

    def __init__(self) -> None:
        self.open: set[web.WebSocketResponse] = set()


SOCKETS = web.AppKey("sockets", Sockets)
PUBLIC_PATHS = ("/", "/healthz", "/openapi.json")
PUBLIC_PREFIXES = ("/static/",)  # the web page's own files: the page asks for the token


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
    if isinstance(exc, SessionDeleted):
        return 404
    if isinstance(exc, StoreConflict):
        return 409
    if isinstance(exc, LockTimeout | StoreUnavailable):
        return 503
    if isinstance(exc, InputError):
        return 400
    return 500
