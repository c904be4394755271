"""Turn writes that are either acknowledged or not stored: answers kept with a keyed turn's
events (a retry is answered from the store), and tombstones (a turn racing a DELETE in
another process never brings the session back)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from serve_helpers import ECHO_CONFIG, redis_server

import tod_echo
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.runtime import Runtime
from tod_runtime.session import SessionReset, UserUttered
from tod_runtime.stores.base import AnswerStore, SessionDeleted, SessionStore
from tod_runtime.stores.memory import MemoryStore
from tod_runtime.stores.sqlite import SQLiteStore


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def pair(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[SessionStore]]:
    """Two store objects over one backing: two processes."""
    if request.param == "memory":
        shared = MemoryStore()
        yield [shared, shared]
    elif request.param == "sqlite":
        stores: list[SessionStore] = [SQLiteStore(tmp_path / "s.db") for _ in range(2)]
        yield stores
        for store in stores:
            await store.close()
    else:
        from tod_redis_store import RedisStore

        with redis_server(tmp_path) as url:
            stores = [RedisStore(url) for _ in range(2)]
            yield stores
            for store in stores:
                await store.close()


async def test_a_deleted_session_is_never_written_back(pair: list[SessionStore]) -> None:
    one, two = pair
    if one is two:
        pytest.skip("the memory store is one process: its runtime's lock orders the two")
    await one.append("s", [SessionReset(), UserUttered(text="hi")], expected=0)
    await one.delete("s")
    for expected in (2, 0, None):  # a stale turn, its rerun, a blind append
        with pytest.raises(SessionDeleted):
            await two.append("s", [UserUttered(text="again")], expected=expected)
    assert await two.length("s") == 0 and "s" not in await two.sessions()


async def test_an_answer_is_stored_with_its_events(pair: list[SessionStore]) -> None:
    one, two = pair
    assert isinstance(one, AnswerStore) and isinstance(two, AnswerStore)
    await one.append(  # type: ignore[call-arg]
        "s", [SessionReset()], expected=0, answer=("k1", b'{"x": 1}')
    )
    assert await two.answer("s", "k1") == b'{"x": 1}'
    assert await two.answer("s", "k2") is None
    await two.delete("s")
    assert await one.answer("s", "k1") is None


class FailsAfterWriting(MemoryStore):
    """A store whose append writes, then fails (a reply lost in a stall)."""

    failing = True

    async def append(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        await super().append(*args, **kwargs)  # type: ignore[arg-type]
        if self.failing and kwargs.get("answer") is not None:
            self.failing = False
            raise TimeoutError("the store stalled after writing")


async def test_a_retry_after_a_failed_acknowledgement_is_no_duplicate() -> None:
    store = FailsAfterWriting()
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(ECHO_CONFIG, plugin_manager=pm, store=store) as runtime:
        await store.append("s", [SessionReset()], expected=0)
        with pytest.raises(asyncio.TimeoutError):
            await runtime.handle("s", "city=Lima", key="turn-1")
        again = await runtime.handle("s", "city=Lima", key="turn-1")
        assert again.utterance == "REQ_MORE()"
        once = await runtime.handle("s", "city=Lima", key="turn-1")
        assert once == again
        turns = (await runtime.dialogue("s")).turns
        assert [t.speaker for t in turns] == ["USER", "SYSTEM"]  # stored once
        await runtime.handle("s", "size=large", key="turn-2")
        assert len((await runtime.dialogue("s")).turns) == 4
