"""Server fixtures: an app over the echo pipeline, through aiohttp's test client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

import tod_echo
from tod_runtime import Config
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.server import ServeSettings, create_app

ECHO = Config(
    services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
)
Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture
def make_client(aiohttp_client: Any) -> MakeClient:
    async def make(*plugins: object, config: Config = ECHO, **settings: Any) -> Client:
        pm = make_plugin_manager(entry_points=False, extra=(tod_echo, *plugins))
        app = create_app(config, ServeSettings(**settings), plugin_manager=pm)
        client: Client = await aiohttp_client(app)
        return client

    return make


@pytest.fixture
async def client(make_client: MakeClient) -> Client:
    return await make_client()
