"""Server fixtures: an app over the echo pipeline, through aiohttp's test client."""

from __future__ import annotations

from typing import Any

import pytest
from serve_helpers import ECHO_CONFIG, Client, MakeClient

import tod_echo
from tod_runtime import Config
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.server import ServeSettings, create_app


@pytest.fixture
def make_client(aiohttp_client: Any) -> MakeClient:
    async def make(*plugins: object, config: Config = ECHO_CONFIG, **settings: Any) -> Client:
        pm = make_plugin_manager(entry_points=False, extra=(tod_echo, *plugins))
        settings.setdefault("client_rate", 0)  # one test client sends as fast as it can
        app = create_app(config, ServeSettings(**settings), plugin_manager=pm)
        client: Client = await aiohttp_client(app)
        return client

    return make


@pytest.fixture
async def client(make_client: MakeClient) -> Client:
    return await make_client()
