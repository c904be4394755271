"""Bodies no parser takes (JSON nested 30,000 deep, a lone surrogate, bytes that are not
UTF-8) are 400 over HTTP and an error message on a WebSocket, which stays open."""

from __future__ import annotations

import pytest
from serve_helpers import Client

DEEP = '{"text": ' + "[" * 30000 + "]" * 30000 + "}"
SURROGATE = '{"text": "caf\\ud800"}'


async def new_session(client: Client) -> str:
    sid: str = (await (await client.post("/v1/sessions")).json())["id"]
    return sid


@pytest.mark.parametrize("body", [DEEP.encode(), SURROGATE.encode(), b'{"text": "\xff"}'])
async def test_http_bodies_no_parser_takes_are_400(client: Client, body: bytes) -> None:
    sid = await new_session(client)
    response = await client.post(
        f"/v1/sessions/{sid}/turns", data=body, headers={"Content-Type": "application/json"}
    )
    assert response.status == 400, await response.text()
    assert (await response.json())["status"] == 400
    session = await (await client.get(f"/v1/sessions/{sid}")).json()
    assert session["turns"] == []  # nothing stored


async def test_websocket_bad_frames_get_an_error_and_the_socket_stays(client: Client) -> None:
    sid = await new_session(client)
    async with client.ws_connect(f"/v1/sessions/{sid}/ws", max_msg_size=0) as ws:
        for frame in (DEEP, SURROGATE):
            await ws.send_str(frame)
            answer = await ws.receive_json()
            assert answer["status"] == 400, answer
        await ws.send_json({"text": "city=Lima"})
        assert (await ws.receive_json())["utterance"] == "REQ_MORE()"
