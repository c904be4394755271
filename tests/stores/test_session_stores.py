"""The session stores (memory, SQLite, Redis) against one contract: compare-and-append,
length, expiry, and a lock that excludes other store objects (other processes)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from serve_helpers import redis_server

from tod_runtime.session import SessionReset, UserUttered
from tod_runtime.stores.base import (
    LockTimeout,
    SessionStore,
    StoreConflict,
    StoreUnavailable,
    locked_read,
)
from tod_runtime.stores.memory import MemoryStore
from tod_runtime.stores.sqlite import SQLiteStore

Factory = Callable[..., SessionStore]


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Factory]:
    """Builds stores over one shared backing (one file, one redis-server): two stores from
    it behave like two processes."""
    opened: list[SessionStore] = []
    if request.param == "memory":
        shared = MemoryStore()

        def make(**_: float) -> SessionStore:
            return shared

        yield make
        return
    if request.param == "sqlite":

        def make(**options: float) -> SessionStore:
            opened.append(SQLiteStore(tmp_path / "s.db", **options))
            return opened[-1]

        yield make
    else:
        from tod_redis_store import RedisStore

        with redis_server(tmp_path) as url:

            def make(**options: float) -> SessionStore:
                opened.append(RedisStore(url, **options))
                return opened[-1]

            yield make
            for store in opened:
                await store.close()
        return
    for store in opened:
        await store.close()


async def test_append_load_length_and_delete(make_store: Factory) -> None:
    store = make_store()
    assert await store.length("a") == 0
    await store.append("a", [UserUttered(text="one"), UserUttered(text="two")], expected=0)
    await store.append("a", [SessionReset()])
    assert await store.length("a") == 3
    assert [type(e).__name__ for e in await store.load("a", 1)] == ["UserUttered", "SessionReset"]
    assert "a" in await store.sessions()
    await store.delete("a")
    assert await store.length("a") == 0 and await store.load("a") == []


async def test_append_with_a_stale_length_writes_nothing(make_store: Factory) -> None:
    store = make_store()
    await store.append("a", [UserUttered(text="one")], expected=0)
    with pytest.raises(StoreConflict, match="changed meanwhile"):
        await store.append("a", [UserUttered(text="again")], expected=0)
    assert [e.text for e in await store.load("a")] == ["one"]  # type: ignore[union-attr]


async def test_a_stored_event_is_a_copy(make_store: Factory) -> None:
    """Changing an event after it was appended (or loaded) changes nothing stored: every
    store keeps what it was given at the time (the memory store as JSON too)."""
    store = make_store()
    event = UserUttered(text="one")
    await store.append("a", [event], expected=0)
    event.text = "changed"
    (loaded,) = await store.load("a")
    assert loaded == UserUttered(text="one", at=event.at)
    loaded.text = "changed too"  # type: ignore[union-attr]
    assert [e.text for e in await store.load("a")] == ["one"]  # type: ignore[union-attr]


async def test_idle_sessions_expire(make_store: Factory) -> None:
    store = make_store()
    await store.append("old", [SessionReset()])
    await asyncio.sleep(0.05)
    await store.append("new", [SessionReset()])
    assert await store.expire(0.03) == ["old"]
    assert await store.length("old") == 0 and await store.length("new") == 1


async def test_the_lock_excludes_another_process(
    make_store: Factory, request: pytest.FixtureRequest
) -> None:
    if request.node.callspec.params["make_store"] == "memory":
        store = make_store()  # one process only: the runtime's own lock serialises turns
        async with store.session_lock("a"), store.session_lock("a"):
            return
    one, two = make_store(), make_store(lock_wait=0.2)
    async with one.session_lock("a"):
        with pytest.raises(LockTimeout, match="locked by another process"):
            async with two.session_lock("a"):
                pass
        async with two.session_lock("b"):  # other sessions are free
            pass
    async with two.session_lock("a"):  # released
        pass


async def test_locked_read_gives_the_log_from_a_position_and_the_answer(
    make_store: Factory,
) -> None:
    """What a turn reads under its lock (one step on Redis, ``session_lock_read``): the
    events from ``start`` on, and the answer stored with the key, read after the lock was
    taken, and the lock held meanwhile."""
    store, other = make_store(lock_wait=0.2), make_store(lock_wait=0.2)
    one, two = UserUttered(text="one"), UserUttered(text="two")
    await store.append("a", [one, two], expected=0, answer=("k", b"{}"))  # type: ignore[call-arg]
    async with locked_read(store, "a", 1, "k") as read:
        assert read == ([two], b"{}")
        if other is not store:
            with pytest.raises(LockTimeout):
                async with other.session_lock("a"):
                    pass
    async with locked_read(store, "a", 0) as read:
        assert read == ([one, two], None)
    async with locked_read(store, "a", 2, "other key") as read:
        assert read == ([], None)
    async with locked_read(store, "new", 0, "k") as read:
        assert read == ([], None)


async def test_sqlite_takes_over_the_lock_of_a_dead_process(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db", lock_wait=0.5)
    db = sqlite3.connect(tmp_path / "s.db")
    import socket

    dead = 2**22 + 12345  # above pid_max's default: no such process
    db.execute("INSERT INTO locks VALUES ('a', 't', ?, ?, 1e12)", (socket.gethostname(), dead))
    db.commit()
    db.close()
    async with store.session_lock("a"):
        await store.append("a", [SessionReset()], expected=0)
    await store.close()


async def test_redis_fencing_refuses_a_writer_whose_lock_expired(tmp_path: Path) -> None:
    from tod_redis_store import RedisStore

    with redis_server(tmp_path) as url:
        slow, fast = RedisStore(url, lock_timeout=0.3), RedisStore(url)
        async with slow.session_lock("a"):
            await asyncio.sleep(0.25)  # renewed while its holder lives
            assert await fast._redis.pttl("tod:lock:a") > 150
            await fast._redis.delete("tod:lock:a")  # as if it expired (the holder stalled)
            async with fast.session_lock("a"):  # so another process takes it
                await fast.append("a", [UserUttered(text="fast")], expected=0)
            with pytest.raises(StoreConflict, match="lock expired"):
                await slow.append("a", [UserUttered(text="slow")], expected=1)
        assert [e.text for e in await fast.load("a")] == ["fast"]  # type: ignore[union-attr]
        await slow.close()
        await fast.close()


async def test_a_redis_turn_takes_two_round_trips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lock and read in one script, then the append, which releases the lock: a turn of a
    session this process holds folded costs two round trips to Redis, however long the
    session (every command packed for any connection of redis-py's counted)."""
    from redis.asyncio.connection import AbstractConnection

    from tod_redis_store import RedisStore
    from tod_runtime import Runtime

    sent: list[object] = []
    pack = AbstractConnection.pack_command

    def counted(self: AbstractConnection, *args: object) -> object:
        sent.append(args[0])
        return pack(self, *args)

    monkeypatch.setattr(AbstractConnection, "pack_command", counted)
    with redis_server(tmp_path) as url:
        store = RedisStore(url)
        async with Runtime(store=store) as runtime:
            await runtime.handle("a", "hello")
            for text in ("I want to find a restaurant", "in Austin", "thanks"):
                sent.clear()
                await runtime.handle("a", text)
                assert sent == ["EVALSHA"] * 2
                assert await store._redis.exists("tod:lock:a") == 0
            assert len(await runtime.events("a")) > 10


async def test_redis_scripts_survive_a_flush_and_a_killed_connection(tmp_path: Path) -> None:
    """The store's own connections for its scripts: a script the server forgot (``SCRIPT
    FLUSH``, a restart) is sent whole and works; an idle connection the server closed is
    connected afresh; a connection cut short by the store's timeout is not reused (its
    late reply would answer the next command)."""
    from tod_redis_store import RedisStore

    with redis_server(tmp_path) as url:
        store = RedisStore.from_url(url + "?socket_timeout=0.3")
        async with locked_read(store, "a", 0) as read:
            assert read.events == []
            await store.append("a", [SessionReset()], expected=0)
        await store._redis.script_flush()
        await store._redis.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        async with locked_read(store, "a", 0) as read:
            assert len(read.events) == 1
            await store.append("a", [UserUttered(text="hi")], expected=1)
        assert len(store._idle) == 1
        await store._redis.execute_command("CLIENT", "PAUSE", 600, "ALL")
        with pytest.raises(StoreUnavailable, match="no answer in 0.3 s"):
            async with store.session_lock("a"):
                pass
        assert store._idle == []  # the connection whose reply was still due: dropped
        await asyncio.sleep(0.6)
        async with locked_read(store, "a", 0) as read:
            assert [type(e).__name__ for e in read.events] == ["SessionReset", "UserUttered"]
            await store.append("a", [UserUttered(text="again")], expected=2)
        assert await store.length("a") == 3
        await store.close()


async def test_a_stalled_redis_is_unavailable_within_the_timeout(tmp_path: Path) -> None:
    """The store bounds each operation itself (redis-py gets no socket timeout): a redis
    that stops answering is StoreUnavailable after ``socket_timeout``, not a hang, and the
    store works again once redis does."""
    from tod_redis_store import RedisStore

    with redis_server(tmp_path) as url:
        store = RedisStore.from_url(url + "?socket_timeout=0.3")
        assert store.timeout == 0.3
        await store.append("a", [SessionReset()], expected=0)
        await store._redis.execute_command("CLIENT", "PAUSE", 1500, "ALL")
        started = asyncio.get_running_loop().time()
        with pytest.raises(StoreUnavailable, match="no answer in 0.3 s"):
            async with store.session_lock("a"):
                pass
        assert asyncio.get_running_loop().time() - started < 1.2
        await asyncio.sleep(1.5)
        assert await store.length("a") == 1
        async with locked_read(store, "a", 0) as read:
            assert read.events == [SessionReset(at=read.events[0].at)]
        await store.close()


async def test_a_redis_append_under_the_lock_releases_it(tmp_path: Path) -> None:
    """The append is the lock holder's one write: it frees the session for another process
    at once, and a second write under the same lock is refused."""
    from tod_redis_store import RedisStore

    with redis_server(tmp_path) as url:
        one, two = RedisStore(url, lock_wait=0.2), RedisStore(url, lock_wait=0.2)
        async with one.session_lock("a"):
            with pytest.raises(LockTimeout):
                async with two.session_lock("a"):
                    pass
            await one.append("a", [UserUttered(text="one")], expected=0)
            async with two.session_lock("a"):  # free before the holder's block ends
                await two.append("a", [UserUttered(text="two")], expected=1)
            with pytest.raises(StoreConflict, match="released"):
                await one.append("a", [UserUttered(text="again")], expected=2)
        async with one.session_lock("a"):
            await one.append("a", [UserUttered(text="three")], expected=2)
        texts = [e.text for e in await two.load("a")]  # type: ignore[union-attr]
        assert texts == ["one", "two", "three"]
        await one.close()
        await two.close()


def test_redis_url_options_are_taken_out() -> None:
    from tod_redis_store import RedisStore, split_url

    assert split_url("redis://h:1/2?prefix=x&lock_timeout=5&db=3&socket_timeout=2") == (
        "redis://h:1/2?db=3",
        {"prefix": "x", "lock_timeout": "5", "socket_timeout": "2"},
    )
    store = RedisStore.from_url("redis://127.0.0.1:1/0?lock_wait=2")
    assert store.lock_wait == 2 and store.prefix == "tod"
