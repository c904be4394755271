"""POST .../turns with an Idempotency-Key: a retry gets the stored answer, never a second
turn; a DELETE leaves a tombstone, so the session's turns answer 404."""

from __future__ import annotations

from serve_helpers import Client


async def test_a_retried_turn_is_answered_from_the_store(client: Client) -> None:
    sid = (await (await client.post("/v1/sessions")).json())["id"]
    url, key = f"/v1/sessions/{sid}/turns", {"Idempotency-Key": "b8f1-turn-1"}
    first = await client.post(url, json={"text": "city=Lima"}, headers=key)
    retry = await client.post(url, json={"text": "city=Lima"}, headers=key)
    assert first.status == retry.status == 200
    assert await first.json() == await retry.json()
    session = await (await client.get(f"/v1/sessions/{sid}")).json()
    assert [t["speaker"] for t in session["turns"]] == ["USER", "SYSTEM"]
    bad = await client.post(url, json={"text": "x"}, headers={"Idempotency-Key": "a b"})
    assert bad.status == 400 and "Idempotency-Key" in (await bad.json())["error"]


async def test_a_deleted_session_stays_deleted(client: Client) -> None:
    sid = (await (await client.post("/v1/sessions")).json())["id"]
    assert (await client.delete(f"/v1/sessions/{sid}")).status == 200
    late = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "city=Lima"})
    assert late.status == 404
