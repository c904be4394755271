"""The token's sources and reach, and the server's limits: sessions, connections, slow
headers and bodies, requests per client; `tod serve` ends 143 on SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from pydantic import ValidationError
from serve_helpers import ECHO_CONFIG, Client, MakeClient

from tod_runtime.errors import ConfigError
from tod_runtime.server import ServeSettings, create_app
from tod_runtime.server.command import serve_settings
from tod_runtime.server.limits import ConnectionGuard, RateLimiter, client_of, trusted_networks


def serve_args(**given: object) -> argparse.Namespace:
    base: dict[str, object] = {"host": "127.0.0.1", "port": 8080, "token": None,
                               "token_file": None, "cors_origin": None, "max_body": 65536}  # fmt: skip
    return argparse.Namespace(**(base | given))


async def test_the_page_loads_with_a_token_and_the_query_token_is_for_websockets_only(
    make_client: MakeClient,
) -> None:
    client = await make_client(token="abc")
    assert (await client.get("/static/app.js")).status == 200
    assert (await client.get("/static/style.css")).status == 200
    assert (await client.get("/v1/services?access_token=abc")).status == 401
    auth = {"Authorization": "Bearer abc"}
    sid = (await (await client.post("/v1/sessions", headers=auth)).json())["id"]
    async with client.ws_connect(f"/v1/sessions/{sid}/ws?access_token=abc") as ws:
        await ws.send_json({"text": "city=Lima"})
        assert (await ws.receive_json())["utterance"] == "REQ_MORE()"


def test_token_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="--token"):
        serve_settings(serve_args(token=""))
    with pytest.raises(ConfigError, match="--token"):
        serve_settings(serve_args(token="   "))
    file = tmp_path / "token"
    file.write_text("from-file\n")
    assert serve_settings(serve_args(token_file=str(file))).token == "from-file"
    with pytest.raises(ConfigError, match="not both"):
        serve_settings(serve_args(token="x", token_file=str(file)))
    file.write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        serve_settings(serve_args(token_file=str(file)))
    monkeypatch.setenv("TOD_TOKEN", "from-env")
    assert serve_settings(serve_args()).token == "from-env"
    assert serve_settings(serve_args(token="flag")).token == "flag"


def test_listening_beyond_loopback_without_a_token_warns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tod_runtime.server.command import _check

    _check(ECHO_CONFIG, ServeSettings(host="0.0.0.0"))
    assert "without a token" in capsys.readouterr().err
    _check(ECHO_CONFIG, ServeSettings(host="0.0.0.0", token="t"))
    _check(ECHO_CONFIG, ServeSettings())
    assert capsys.readouterr().err == ""
    with pytest.raises(ConfigError, match="--workers"):
        _check(ECHO_CONFIG, ServeSettings(workers=2))


async def test_sessions_are_capped(make_client: MakeClient) -> None:
    client = await make_client(max_sessions=2)
    for _ in range(2):
        assert (await client.post("/v1/sessions")).status == 201
    refused = await client.post("/v1/sessions")
    assert refused.status == 503 and refused.headers["Retry-After"] == "1"


def test_the_rate_limiter_refuses_a_burst_and_recovers() -> None:
    limiter = RateLimiter(rate=5)
    assert all(limiter.allow("a", now=0.0) for _ in range(10))
    assert not limiter.allow("a", now=0.0) and limiter.allow("b", now=0.0)
    assert limiter.allow("a", now=0.3)


async def test_requests_over_the_client_rate_are_429(make_client: MakeClient) -> None:
    client = await make_client(client_rate=2)
    codes = [(await client.get("/v1/services")).status for _ in range(8)]
    assert codes[:4] == [200] * 4 and codes[-1] == 429
    assert (await client.get("/healthz")).status == 200


def test_the_client_behind_a_trusted_proxy_is_the_first_untrusted_forwarded_hop() -> None:
    proxies = trusted_networks(["10.0.0.1", "192.168.0.0/16"])
    assert client_of("203.0.113.9", ["1.2.3.4"], proxies) == "203.0.113.9"  # not a proxy
    assert client_of("10.0.0.1", ["1.2.3.4"], proxies) == "1.2.3.4"
    # the client's own header comes first; proxies append to its right
    assert client_of("10.0.0.1", ["6.6.6.6, 1.2.3.4, 192.168.3.3"], proxies) == "1.2.3.4"
    assert client_of("10.0.0.1", ["6.6.6.6", "1.2.3.4"], proxies) == "1.2.3.4"
    assert client_of("10.0.0.1", [], proxies) == "10.0.0.1"
    assert client_of("10.0.0.1", ["192.168.1.1"], proxies) == "192.168.1.1"  # all trusted
    assert client_of("10.0.0.1", ["1.2.3.4"], ()) == "10.0.0.1"  # none configured
    with pytest.raises(ValueError):
        trusted_networks(["proxy.example"])


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_rate(
    make_client: MakeClient,
) -> None:
    async def codes(client: Client, forwarded: str) -> list[int]:
        headers = {"X-Forwarded-For": forwarded}
        return [(await client.get("/v1/services", headers=headers)).status for _ in range(6)]

    direct = await make_client(client_rate=1)  # X-Forwarded-For from anyone is ignored
    assert (await codes(direct, "1.1.1.1"))[-1] == 429
    assert (await codes(direct, "2.2.2.2"))[0] == 429
    proxied = await make_client(client_rate=1, trusted_proxies=["127.0.0.1", "::1"])
    assert (await codes(proxied, "1.1.1.1"))[-1] == 429
    assert (await codes(proxied, "2.2.2.2"))[0] == 200
    assert (await codes(proxied, "2.2.2.2, 1.1.1.1"))[0] == 429  # a spoofed left part
    with pytest.raises(ConfigError, match="--trusted-proxy"):
        serve_settings(serve_args(trusted_proxies=["not-an-address"]))


@pytest.mark.parametrize(
    ("value", "network"), [("10.0.0.1/8", "10.0.0.0/8"), ("2001:db8::1/32", "2001:db8::/32")]
)
def test_a_trusted_proxy_with_host_bits_set_is_refused_not_widened(
    value: str, network: str
) -> None:
    with pytest.raises(ConfigError, match=f"--trusted-proxy: '{value}' has host bits.*'{network}'"):
        serve_settings(serve_args(trusted_proxies=[value]))
    with pytest.raises(ValidationError, match="host bits"):
        ServeSettings(trusted_proxies=[value])
    with pytest.raises(ValueError, match=network):
        trusted_networks([value])


def test_a_bare_trusted_proxy_address_is_that_one_address() -> None:
    settings = serve_settings(serve_args(trusted_proxies=["10.0.0.1", " ::1 ", "10.0.0.0/8"]))
    one, loopback, wide = trusted_networks(settings.trusted_proxies)
    assert (str(one), str(loopback), str(wide)) == ("10.0.0.1/32", "::1/128", "10.0.0.0/8")
    assert client_of("10.0.0.2", ["1.2.3.4"], (one,)) == "10.0.0.2"  # a neighbour is not trusted


async def serving(settings: ServeSettings) -> tuple[web.AppRunner, asyncio.Server, ConnectionGuard]:
    from serve_helpers import ECHO_CONFIG as config

    import tod_echo
    from tod_runtime.plugins import make_plugin_manager

    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    runner = web.AppRunner(create_app(config, settings, plugin_manager=pm))
    await runner.setup()
    guard = ConnectionGuard(runner, settings)
    server = await asyncio.get_running_loop().create_server(guard, "127.0.0.1", 0)
    return runner, server, guard


async def test_slow_headers_and_slow_bodies_are_closed_and_connections_capped() -> None:
    settings = ServeSettings(read_timeout=0.4, max_connections=3, client_rate=0)
    runner, server, guard = await serving(settings)
    port = server.sockets[0].getsockname()[1]
    try:
        async with aiohttp.ClientSession() as http:
            created = await http.post(f"http://127.0.0.1:{port}/v1/sessions")
            sid = (await created.json())["id"]
        await asyncio.sleep(0.2)  # that connection is closed and no longer counted
        slow_header = await asyncio.open_connection("127.0.0.1", port)
        slow_header[1].write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
        slow_body = await asyncio.open_connection("127.0.0.1", port)
        slow_body[1].write(
            f"POST /v1/sessions/{sid}/turns HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
            "\r\n{".encode()
        )
        third = await asyncio.open_connection("127.0.0.1", port)
        fourth = await asyncio.open_connection("127.0.0.1", port)
        assert b"503" in await asyncio.wait_for(fourth[0].read(), 5)  # over the cap
        assert await asyncio.wait_for(slow_header[0].read(), 5) == b""  # closed
        answer = await asyncio.wait_for(slow_body[0].read(200), 5)
        assert answer.startswith(b"HTTP/1.1 408")
        assert guard.timed_out >= 1 and guard.refused == 1
        third[1].write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert b"200 OK" in await asyncio.wait_for(third[0].read(), 5)
        for _, writer in (slow_header, slow_body, third, fourth):
            writer.close()
    finally:
        server.close()
        await runner.cleanup()
        await server.wait_closed()


async def test_a_kept_alive_connection_is_timed_per_request_not_while_idle() -> None:
    settings = ServeSettings(read_timeout=0.4, idle_timeout=30, client_rate=0)
    runner, server, guard = await serving(settings)
    port = server.sockets[0].getsockname()[1]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(2):  # idle longer than read_timeout between requests: still open
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"200 OK" in await asyncio.wait_for(reader.readuntil(b"}"), 5)
            await asyncio.sleep(1.0)
        assert guard.timed_out == 0 and guard.open == 1
        writer.write(b"GET /healthz HTTP/1.1\r\n")  # the next one never finishes
        assert await asyncio.wait_for(reader.read(), 5) == b""
        assert guard.timed_out == 1
        writer.close()
        await asyncio.sleep(0.1)
        assert guard.open == 0
    finally:
        server.close()
        await runner.cleanup()
        await server.wait_closed()


def test_the_limits_use_only_aiohttps_public_api() -> None:
    import ast

    import tod_runtime.server.limits as limits

    tree = ast.parse(Path(limits.__file__).read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in modules if m and m.startswith("aiohttp.")}  # web_protocol etc.
    own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    private = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} - own
    assert not {a for a in private if a.startswith("_") and not a.startswith("__")}


def test_a_port_in_use_is_an_io_error(capsys: pytest.CaptureFixture[str]) -> None:
    from tod_runtime.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        echo = ["--services", "echo", "--backend", "echo", "--nlu", "echo", "--tracker", "echo",
                "--policy", "echo", "--generator", "echo"]  # fmt: skip
        assert main(["serve", "--port", str(port), *echo]) == 5
    assert "cannot listen" in capsys.readouterr().err


def test_tod_serve_with_a_widened_trusted_proxy_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tod_runtime.cli import main

    with socket.socket() as busy:  # without the check, it ends at once, unable to listen
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        assert main(["serve", "--port", port, "--trusted-proxy", "10.0.0.1/8"]) == 2
    err = capsys.readouterr().err
    assert "'10.0.0.1/8' has host bits set" in err and "'10.0.0.0/8'" in err
