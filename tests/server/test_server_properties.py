"""Property-based: whatever a client sends, the answer is JSON with a 2xx/4xx status (or a
500 for the echo NLU's deliberate 'boom'), never a traceback, and the session is never broken:
a failed turn leaves it exactly as it was."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_helpers import Client

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
BODIES = st.one_of(
    st.binary(max_size=300),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(["text", "extra"]), JSON, max_size=2).map(
        lambda v: json.dumps(v).encode()
    ),
    st.text(max_size=200).map(lambda t: json.dumps({"text": t}).encode()),
)
PATHS = st.one_of(
    st.sampled_from(["{sid}", "nope", "{sid}x", "..", "%00", "a" * 65]),
    st.text(alphabet="abcXYZ09_-.%~", min_size=1, max_size=20),
)
COMMON = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


async def session(client: Client) -> dict[str, object]:
    sid = (await (await client.post("/v1/sessions")).json())["id"]
    await client.post(f"/v1/sessions/{sid}/turns", json={"text": "city=Lima"})
    return {"sid": sid}


@COMMON
@given(body=BODIES)
async def test_any_turn_body(client: Client, body: bytes) -> None:
    sid = (await session(client))["sid"]
    before = await (await client.get(f"/v1/sessions/{sid}")).json()
    response = await client.post(f"/v1/sessions/{sid}/turns", data=body)
    answer = await response.json()  # always JSON
    assert response.status in (200, 400, 500), answer
    assert "Traceback" not in json.dumps(answer)
    after = await client.get(f"/v1/sessions/{sid}")
    assert after.status == 200
    turns = (await after.json())["turns"]
    if response.status != 200 or answer.get("notice"):
        assert (await after.json()) == before
    else:
        assert len(turns) == len(before["turns"]) + 2
    if response.status == 500:
        assert "boom" in json.loads(body)["text"]


@COMMON
@given(path=PATHS, method=st.sampled_from(["GET", "DELETE", "POST", "PUT", "PATCH"]))
async def test_any_session_path(client: Client, path: str, method: str) -> None:
    sid = str((await session(client))["sid"])
    target = path.format(sid=sid)
    response = await client.request(method, f"/v1/sessions/{target}", json={"text": "x=1"})
    assert response.status in (200, 404, 405), response.status
    answer = await response.json()
    assert "Traceback" not in json.dumps(answer)
    if response.status != 200:
        assert answer["status"] == response.status and answer["error"]
