"""Two runtimes sharing one store behave like two processes: alternating a session's turns
between them, or firing turns at it concurrently, gives the history one runtime gives."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from serve_helpers import redis_server

import tod_echo
from tod_runtime import Config, Runtime
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.stores.base import SessionStore
from tod_runtime.stores.sqlite import SQLiteStore

ECHO = Config(
    services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
)
TURNS = [f"city=c{i} size=s{i}" if i % 3 else "call" for i in range(12)]


def runtime(store: SessionStore) -> Runtime:
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    return Runtime(ECHO, plugin_manager=pm, store=store)


async def reference() -> list[tuple[str, str]]:
    async with runtime(SQLiteStore(":memory:")) as one:
        for text in TURNS:
            await one.handle("s", text)
        return [(t.speaker, t.utterance) for t in (await one.dialogue("s")).turns]


async def check(make: Callable[[], SessionStore]) -> None:
    want = await reference()
    async with runtime(make()) as a, runtime(make()) as b:
        for i, text in enumerate(TURNS):  # alternate
            await (a if i % 2 else b).handle("s", text)
        got = [(t.speaker, t.utterance) for t in (await b.dialogue("s")).turns]
        assert got == want
        # concurrent turns at one session from both: none lost, none interleaved
        await asyncio.gather(*[(a, b)[i % 2].handle("c", f"city=x{i}") for i in range(20)])
        turns = (await a.dialogue("c")).turns
        assert [t.speaker for t in turns] == ["USER", "SYSTEM"] * 20
        said = sorted(t.utterance for t in turns if t.speaker == "USER")
        assert said == sorted(f"city=x{i}" for i in range(20))


async def test_two_runtimes_on_one_sqlite_file(tmp_path: Path) -> None:
    await check(lambda: SQLiteStore(tmp_path / "s.db"))


async def test_two_runtimes_on_one_redis(tmp_path: Path) -> None:
    from tod_redis_store import RedisStore

    with redis_server(tmp_path) as url:
        await check(lambda: RedisStore(url))


async def test_a_session_deleted_by_another_process_is_never_brought_back(
    tmp_path: Path,
) -> None:
    from tod_runtime.stores.base import SessionDeleted

    async with (
        runtime(SQLiteStore(tmp_path / "s.db")) as a,
        runtime(SQLiteStore(tmp_path / "s.db")) as b,
    ):
        await a.handle("s", "city=Lima")
        await b.delete("s")
        with pytest.raises(SessionDeleted):  # its tombstone: a turn in flight writes nothing
            await a.handle("s", "size=small")
        assert await a.store.length("s") == 0


async def test_the_turn_limit(tmp_path: Path) -> None:
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(ECHO.with_overrides(max_turns_per_session=2), plugin_manager=pm) as rt:
        await rt.handle("s", "city=a")
        await rt.handle("s", "city=b")
        with pytest.raises(Exception, match="limit of 2 turns"):
            await rt.handle("s", "city=c")
        assert len((await rt.dialogue("s")).turns) == 4


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_a_turn_on_a_session_deleted_elsewhere_runs_nothing(
    tmp_path: Path, kind: str
) -> None:
    """The runtime holding the session folded finds out before its pipeline runs: no
    service is called for a session that no longer exists."""
    from tod_runtime.stores.base import SessionDeleted

    async def both(url: str | None) -> None:
        def make() -> SessionStore:
            if url is None:
                return SQLiteStore(tmp_path / "s.db")
            from tod_redis_store import RedisStore

            return RedisStore(url)

        async with runtime(make()) as a, runtime(make()) as b:
            await a.handle("s", "city=Lima")
            await b.delete("s")
            tod_echo.observed.clear()
            with pytest.raises(SessionDeleted):
                await a.handle("s", "call")  # would call the service
            assert not [name for name, _ in tod_echo.observed if name == "service_called"]
            assert not a.holds("s") and await a.store.length("s") == 0

    if kind == "sqlite":
        await both(None)
    else:
        with redis_server(tmp_path) as url:
            await both(url)
