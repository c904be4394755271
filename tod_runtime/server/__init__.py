"""The HTTP and WebSocket server: ``create_app(config)`` builds an aiohttp application over
one Runtime (``tod serve`` runs it). The pipeline never imports this package."""

from tod_runtime.server.app import create_app
from tod_runtime.server.base import RUNTIME, SETTINGS, ServeSettings

__all__ = ["RUNTIME", "SETTINGS", "ServeSettings", "create_app"]
