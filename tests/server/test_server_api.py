"""The REST and WebSocket API over the echo pipeline (aiohttp's test client)."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from serve_helpers import ECHO_CONFIG as ECHO
from serve_helpers import Client, MakeClient

from tod_runtime import hookimpl
from tod_runtime.server import RUNTIME


async def new_session(client: Client, **headers: str) -> str:
    response = await client.post("/v1/sessions", headers=headers)
    assert response.status == 201
    session_id: str = (await response.json())["id"]
    return session_id


async def test_a_conversation(client: Client) -> None:
    sid = await new_session(client)
    assert len(sid) >= 24 and sid != await new_session(client)
    r = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "city=Lima"})
    assert r.status == 200
    body = await r.json()
    assert body["utterance"] == "REQ_MORE()"
    assert body["state"]["Echo_1"]["slot_values"] == {"city": ["Lima"]}
    r = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "call"})
    body = await r.json()
    assert body["service_call"] == {"method": "FindThing", "parameters": {"city": "Lima"}}
    assert body["service_results"][0]["name"] == "Thing One"
    session = await (await client.get(f"/v1/sessions/{sid}")).json()
    assert [t["speaker"] for t in session["turns"]] == ["USER", "SYSTEM"] * 2
    assert session["state"]["Echo_1"]["slot_values"] == {"city": ["Lima"]}
    assert (await client.delete(f"/v1/sessions/{sid}")).status == 200
    assert (await client.get(f"/v1/sessions/{sid}")).status == 404


async def test_health_and_services(client: Client) -> None:
    assert await (await client.get("/healthz")).json() == {"status": "ok"}
    services = (await (await client.get("/v1/services")).json())["services"]
    assert [s["service_name"] for s in services] == ["Echo_1"]


async def test_errors_are_json_with_the_right_status(client: Client) -> None:
    sid = await new_session(client)
    turns = f"/v1/sessions/{sid}/turns"
    for body, status, message in (
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "must be a JSON object"),
        (b"{}", 400, "missing field 'text'"),
        (b'{"text": 3}', 400, "'text' must be a string"),
        (b"\xff\xfe", 400, "not valid JSON"),
    ):
        r = await client.post(turns, data=body)
        assert r.status == status
        assert message in (await r.json())["error"]
    r = await client.post("/v1/sessions/nope/turns", json={"text": "hi"})
    assert (r.status, (await r.json())["status"]) == (404, 404)
    r = await client.get("/v1/nothing")
    assert r.status == 404 and "error" in await r.json()
    r = await client.put("/v1/sessions")
    assert r.status == 405 and "error" in await r.json()
    r = await client.post(turns, data=b'{"text": "' + b"x" * 70_000 + b'"}')
    assert r.status == 413 and "error" in await r.json()
    assert len((await (await client.get(f"/v1/sessions/{sid}")).json())["turns"]) == 0


async def test_a_long_message_gets_a_notice_and_stores_nothing(client: Client) -> None:
    sid = await new_session(client)
    r = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "x" * 2001})
    assert "too long" in (await r.json())["notice"]
    assert (await (await client.get(f"/v1/sessions/{sid}")).json())["turns"] == []


async def test_a_plugin_failure_is_a_500_and_leaves_the_session_as_it_was(
    client: Client,
) -> None:
    sid = await new_session(client)
    await client.post(f"/v1/sessions/{sid}/turns", json={"text": "city=Lima"})
    before = await (await client.get(f"/v1/sessions/{sid}")).json()
    r = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "boom"})
    assert r.status == 500
    body = await r.json()
    assert "boom" in body["error"] and "Traceback" not in body["error"]
    assert await (await client.get(f"/v1/sessions/{sid}")).json() == before


async def test_turn_limit(make_client: MakeClient) -> None:
    client = await make_client(config=ECHO.with_overrides(max_turns_per_session=1))
    sid = await new_session(client)
    assert (await client.post(f"/v1/sessions/{sid}/turns", json={"text": "a=1"})).status == 200
    r = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "a=2"})
    assert r.status == 400 and "limit of 1 turns" in (await r.json())["error"]


async def test_bearer_token(make_client: MakeClient) -> None:
    client = await make_client(token="s3cret")
    assert (await client.post("/v1/sessions")).status == 401
    r = await client.post("/v1/sessions", headers={"Authorization": "Bearer wrong"})
    assert r.status == 401 and "bearer token" in (await r.json())["error"]
    sid = await new_session(client, Authorization="Bearer s3cret")
    # the query token is for the WebSocket route only (elsewhere it would land in logs)
    assert (await client.get(f"/v1/sessions/{sid}?access_token=s3cret")).status == 401
    assert (await client.get("/healthz")).status == 200  # public
    assert (await client.get("/")).status == 200


async def test_cors_is_closed_unless_configured(make_client: MakeClient) -> None:
    closed = await make_client()
    r = await closed.get("/healthz", headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in r.headers
    r = await closed.options("/v1/sessions", headers={"Origin": "http://evil.example"})
    assert r.status == 405 and "Access-Control-Allow-Origin" not in r.headers
    opened = await make_client(cors_origins=["http://app.example"])
    r = await opened.options("/v1/sessions", headers={"Origin": "http://app.example"})
    assert r.status == 204 and r.headers["Access-Control-Allow-Origin"] == "http://app.example"
    r = await opened.post("/v1/sessions", headers={"Origin": "http://app.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "http://app.example"
    r = await opened.post("/v1/sessions", headers={"Origin": "http://other.example"})
    assert "Access-Control-Allow-Origin" not in r.headers


async def test_websocket_turns(client: Client) -> None:
    sid = await new_session(client)
    async with client.ws_connect(f"/v1/sessions/{sid}/ws") as ws:
        await ws.send_json({"text": "city=Oslo"})
        assert (await ws.receive_json())["state"]["Echo_1"]["slot_values"] == {"city": ["Oslo"]}
        await ws.send_str("{oops")
        assert await ws.receive_json() == {"error": "the body is not valid JSON", "status": 400}
        await ws.send_json({"text": "boom"})
        assert (await ws.receive_json())["status"] == 500
        await ws.send_json({"text": "call"})
        assert (await ws.receive_json())["service_call"]["parameters"] == {"city": "Oslo"}
    assert (await client.get(f"/v1/sessions/{sid}/ws")).status == 400  # not an upgrade
    assert (await client.get("/v1/sessions/nope/ws")).status == 404


async def test_concurrent_turns_at_one_session_do_not_interleave(client: Client) -> None:
    sid = await new_session(client)
    texts = [f"city=c{i}" for i in range(30)]
    await asyncio.gather(
        *[client.post(f"/v1/sessions/{sid}/turns", json={"text": t}) for t in texts]
    )
    turns = (await (await client.get(f"/v1/sessions/{sid}")).json())["turns"]
    assert [t["speaker"] for t in turns] == ["USER", "SYSTEM"] * 30
    assert sorted(t["utterance"] for t in turns[::2]) == sorted(texts)


async def test_idle_sessions_expire(make_client: MakeClient) -> None:
    client = await make_client(config=ECHO.with_overrides(session_ttl=0.05), expire_every=0.02)
    sid = await new_session(client)
    await asyncio.sleep(0.3)
    assert (await client.get(f"/v1/sessions/{sid}")).status == 404


async def test_hook_register_routes(make_client: MakeClient) -> None:
    class Version:
        @hookimpl
        def register_routes(self, app: web.Application) -> None:
            async def version(request: web.Request) -> web.Response:
                schemas = request.app[RUNTIME].schemas
                return web.json_response({"services": len(schemas)})

            app.router.add_get("/v1/version", version)

    client = await make_client(Version())
    assert await (await client.get("/v1/version")).json() == {"services": 1}


async def test_the_chat_page_and_its_files_are_served(client: Client) -> None:
    page = await (await client.get("/")).text()
    assert "<script" in page and "/static/app.js" in page
    for path in ("/static/app.js", "/static/style.css"):
        assert (await client.get(path)).status == 200


async def test_tod_serve_freezes_long_lived_objects() -> None:
    """``tod serve`` freezes what start-up built, then what survived each full collection,
    so a full collection (a pause for every request) walks only what came since."""
    import gc

    from tod_runtime.server.command import freeze_long_lived_objects

    thresholds = gc.get_threshold()
    frozen = freeze_long_lived_objects(web.Application())
    try:
        await anext(frozen)
        at_start = gc.get_freeze_count()
        assert at_start > 0
        survivors = [{"turn": [i]} for i in range(1000)]
        gc.collect()  # a full collection: its survivors are frozen at the next loop turn
        await asyncio.sleep(0)
        assert gc.get_freeze_count() >= at_start + len(survivors)
    finally:
        await anext(frozen, None)
        gc.unfreeze()
    assert all(cb.__name__ != "after_collection" for cb in gc.callbacks)
    assert gc.get_threshold() == thresholds


async def test_a_turn_on_a_session_the_server_holds_asks_the_store_nothing_more(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = client.app[RUNTIME].store
    real, asked = store.length, list[str]()

    async def length(session_id: str) -> int:
        asked.append(session_id)
        return await real(session_id)

    monkeypatch.setattr(store, "length", length)
    sid = await new_session(client)
    for text in ("city=Lima", "size=small"):
        assert (await client.post(f"/v1/sessions/{sid}/turns", json={"text": text})).status == 200
    assert asked == [sid]  # the first turn: not held yet, so asked whether it exists
    assert (await client.post("/v1/sessions/nope/turns", json={"text": "x"})).status == 404
    assert (await client.delete(f"/v1/sessions/{sid}")).status == 200
    assert (await client.post(f"/v1/sessions/{sid}/turns", json={"text": "x"})).status == 404
