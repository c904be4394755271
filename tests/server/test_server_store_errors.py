"""A store that fails is answered 503 "session store unavailable" with Retry-After; its URL
(and a password in it) reaches no client, and the server log names it without the password."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from aiohttp import WSServerHandshakeError
from serve_helpers import ECHO_CONFIG, MakeClient, free_port

from tod_runtime.server import RUNTIME
from tod_runtime.stores.base import StoreUnavailable, redact_url
from tod_runtime.stores.sqlite import SQLiteStore

PASSWORD = "s3cret-Pa55word"


def test_redact_url_hides_only_the_password() -> None:
    assert redact_url(f"redis://:{PASSWORD}@db.example:6379/0") == "redis://:***@db.example:6379/0"
    assert redact_url(f"redis://me:{PASSWORD}@h/0?prefix=x") == "redis://me:***@h/0?prefix=x"
    assert redact_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    assert redact_url("sqlite:///x.db") == "sqlite:///x.db"


async def test_no_client_sees_the_store_url_or_its_password(
    make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("tod_redis_store")
    import tod_redis_store

    url = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"  # nothing listens there
    config = ECHO_CONFIG.model_copy(update={"store": url})
    client = await make_client(tod_redis_store, config=config)
    answers = [
        await client.post("/v1/sessions"),
        await client.post("/v1/sessions/abc/turns", json={"text": "hi"}),
        await client.get("/v1/sessions/abc"),
        await client.delete("/v1/sessions/abc"),
    ]
    with caplog.at_level(logging.ERROR, logger="tod_runtime.server"):
        answers.append(await client.post("/v1/sessions/abc/turns", json={"text": "hi"}))
    for response in answers:
        body = await response.text()
        assert response.status == 503, body
        assert response.headers["Retry-After"] == "1"
        assert await response.json() == {"error": "session store unavailable", "status": 503}
        assert PASSWORD not in body and "127.0.0.1" not in body
    with pytest.raises(WSServerHandshakeError) as refused:  # the session check reads the store
        await client.ws_connect("/v1/sessions/abc/ws")
    assert refused.value.status == 503
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "redis" in logged and "***" in logged and PASSWORD not in logged


@pytest.mark.parametrize("kind", ["folder", "missing folder", "not a database"])
def test_a_bad_sqlite_path_is_store_unavailable(tmp_path: Path, kind: str) -> None:
    path = {"folder": tmp_path, "missing folder": tmp_path / "no" / "s.db"}.get(kind)
    if path is None:
        path = tmp_path / "junk.db"
        path.write_bytes(b"this is no SQLite database at all, only text" * 100)
    with pytest.raises(StoreUnavailable):
        SQLiteStore(path)


async def test_a_failing_sqlite_store_is_503(make_client: MakeClient, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    config = ECHO_CONFIG.model_copy(update={"store": f"sqlite:///{db}"})
    client = await make_client(config=config)
    sid = (await (await client.post("/v1/sessions")).json())["id"]
    store = client.app[RUNTIME].store
    assert isinstance(store, SQLiteStore)
    store._db.execute("DROP TABLE events")  # any SQLite error on the way
    response = await client.post(f"/v1/sessions/{sid}/turns", json={"text": "hi"})
    assert response.status == 503 and response.headers["Retry-After"] == "1"
    assert await response.json() == {"error": "session store unavailable", "status": 503}
