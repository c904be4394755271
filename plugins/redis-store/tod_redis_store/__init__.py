"""tod-runtime-redis-store: session logs in Redis, shared by every process serving them.

``redis://host:port/db?prefix=tod&lock_timeout=60&lock_wait=60&socket_timeout=10``. See
README.md for the keys and the locking protocol (a lock with a timeout, and fenced
compare-and-append)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError, ResponseError

from tod_runtime import hookimpl
from tod_runtime.errors import ConfigError, IOFailure
from tod_runtime.session import EVENT_ADAPTER, Event
from tod_runtime.stores.base import (
    TOMBSTONE_SECONDS,
    Locked,
    StoreConflict,
    StoreUnavailable,
    conflict,
    deleted,
    redact_url,
    take_lock,
)

# KEYS: log, lock, touched, answers, gone. ARGV: expected, lock token, now, session id,
# answer key ('' for none), answer, events... One script: the events, the answer and the
# touch are written together or not at all; with a token, the lock is released with them
# (a turn's append is its last write under its lock: no unlock round trip after it).
_APPEND = """
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return {-2, 0} end
local n = redis.call('LLEN', KEYS[1])
if n == 0 and redis.call('EXISTS', KEYS[5]) == 1 then return {-3, 0} end
if tonumber(ARGV[1]) >= 0 and n ~= tonumber(ARGV[1]) then return {-1, n} end
for i = 7, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[5], ARGV[6]) end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
if ARGV[2] ~= '' then redis.call('DEL', KEYS[2]) end
return {0, n + #ARGV - 6}
"""
# KEYS: lock, fence. ARGV: random part of the token, lock timeout (ms). One round trip: the
# next fence number and the lock taken with it (its token), or nil while another holds it.
_LOCK = """
local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[1]
if redis.call('SET', KEYS[1], token, 'NX', 'PX', ARGV[2]) then return token end
return false
"""
# KEYS: lock, fence, log, answers. ARGV: as _LOCK's, then the first event to read and an
# Idempotency-Key ('' for none). The lock taken as _LOCK takes it and, once it is held, what
# the turn reads under it: {token, the key's answer or nil, the log from that event on}.
_LOCK_READ = """
local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[1]
if not redis.call('SET', KEYS[1], token, 'NX', 'PX', ARGV[2]) then return false end
local answer = false
if ARGV[4] ~= '' then answer = redis.call('HGET', KEYS[4], ARGV[4]) end
return {token, answer, redis.call('LRANGE', KEYS[3], ARGV[3], -1)}
"""
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_OPTIONS = ("prefix", "lock_timeout", "lock_wait", "socket_timeout")
T = TypeVar("T")


@dataclass
class _Hold:
    """A session lock this process holds: its token (fencing), and whether an append
    released it already (the holder's one write: any further write under it is refused)."""

    token: str
    released: bool = False


def split_url(url: str) -> tuple[str, dict[str, str]]:
    """The URL for redis-py, and this store's own options taken out of its query."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    own = {k: v for k, v in query if k in _OPTIONS}
    rest = urlencode([(k, v) for k, v in query if k not in _OPTIONS])
    return urlunsplit(parts._replace(query=rest)), own


class RedisStore:
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "tod",
        lock_timeout: float = 10.0,
        lock_wait: float = 60.0,
        timeout: float = 10.0,
    ) -> None:
        """``timeout``: seconds one store operation may take (``socket_timeout`` in the
        URL), so a stalled redis is an error, not a hang. The store bounds each operation
        itself (``asyncio.timeout``): redis-py, given a socket timeout, would wrap every
        command's send in ``asyncio.wait_for`` (a task each on Python 3.11) and retry a
        command that timed out, sending it again."""
        self.url, self.prefix = url, prefix
        self.shown = redact_url(url)  # what messages and logs name: never the password
        self.lock_timeout, self.lock_wait, self.timeout = lock_timeout, lock_wait, timeout
        # the URL's socket_connect_timeout, if any, overrides this default
        self._redis: Any = aioredis.from_url(url, socket_timeout=None, socket_connect_timeout=5)
        self._append_script = self._redis.register_script(_APPEND)
        self._lock_script = self._redis.register_script(_LOCK)
        self._lock_read_script = self._redis.register_script(_LOCK_READ)
        self._unlock_script = self._redis.register_script(_UNLOCK)
        self._renew_script = self._redis.register_script(_RENEW)
        self._held: dict[str, _Hold] = {}  # session -> this process's lock on it
        # connections for the scripts a turn sends (``_script``), idle ones
        self._idle: list[AbstractConnection] = []

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        plain, own = split_url(url)
        try:
            lock_timeout = float(own.get("lock_timeout", 10))
            lock_wait = float(own.get("lock_wait", 60))
            timeout = float(own.get("socket_timeout", 10))
        except ValueError:
            raise ConfigError(
                "lock_timeout, lock_wait and socket_timeout take seconds", file=redact_url(url)
            ) from None
        prefix = own.get("prefix", "tod")
        return cls(
            plain, prefix=prefix, lock_timeout=lock_timeout, lock_wait=lock_wait, timeout=timeout
        )

    async def _do(self, command: Awaitable[T]) -> T:
        """``command``'s answer, within ``timeout``; a failure or a stall is
        ``StoreUnavailable`` (redis-py drops a connection whose command was cut short)."""
        try:
            async with asyncio.timeout(self.timeout):
                return await command
        except RedisError as exc:
            raise self._failed(exc) from None
        except TimeoutError:
            raise self._failed(f"no answer in {self.timeout:g} s") from None

    async def _script(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """``script(keys=keys, args=args)``, sent on a connection of the store's own: the
        ``EVALSHA`` packed and written, its reply read, without redis-py's command machinery
        (the pool's lock and bookkeeping, the retry wrapper, the observability hooks: about
        as much CPU as the round trip's own socket work). A connection that failed or was
        cut short (the store's timeout) is dropped, never reused; an idle one the server
        closed, or one holding unread data, is connected afresh before it is used; a
        script the server does not know (restarted, ``SCRIPT FLUSH``) is sent whole
        (``EVAL``, which loads it). Not retried: an append sent twice could land twice."""
        conn = self._idle.pop() if self._idle else self._redis.connection_pool.make_connection()
        try:
            if conn.is_connected and await conn.can_read():  # closed, or a reply left
                await conn.disconnect()
            await conn.send_packed_command(
                conn.pack_command("EVALSHA", script.sha, len(keys), *keys, *args), False
            )
            try:
                answer = await conn.read_response()
            except NoScriptError:
                await conn.send_packed_command(
                    conn.pack_command("EVAL", script.script, len(keys), *keys, *args), False
                )
                answer = await conn.read_response()
        except ResponseError:  # an error reply read whole: the connection is clean
            self._idle.append(conn)
            raise
        except BaseException:
            await conn.disconnect(nowait=True)
            raise
        self._idle.append(conn)
        return answer

    def _key(self, kind: str, session_id: str = "") -> str:
        return f"{self.prefix}:{kind}:{session_id}" if session_id else f"{self.prefix}:{kind}"

    def _failed(self, exc: RedisError | str) -> IOFailure:
        message = f"redis: {exc}"
        password = urlsplit(self.url).password
        if password:
            message = message.replace(password, "***")
        return StoreUnavailable(
            message, file=self.shown, hint="is redis-server running and reachable?"
        )

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        rows = await self._do(self._redis.lrange(self._key("log", session_id), start, -1))
        return [EVENT_ADAPTER.validate_json(row) for row in rows]

    async def append(
        self,
        session_id: str,
        events: Sequence[Event],
        expected: int | None = None,
        answer: tuple[str, bytes] | None = None,
    ) -> None:
        keys = [self._key("log", session_id), self._key("lock", session_id), self._key("touched")]
        keys += [self._key("answers", session_id), self._key("gone", session_id)]
        hold = self._held.get(session_id)
        token = hold.token if hold is not None else ""
        if hold is not None and hold.released:
            raise StoreConflict(
                f"session {session_id!r}: this lock's append released it; nothing more is "
                "written under it",
                hint="take the session's lock again for another write",
            )
        args: list[str | bytes | int | float] = [
            -1 if expected is None else expected,
            token,
            time.time(),
            session_id,
            *(answer or ("", b"")),
        ]
        args += [EVENT_ADAPTER.dump_json(e) for e in events]
        status, found = await self._do(self._script(self._append_script, keys, args))
        if status == -2:
            raise StoreConflict(
                f"session {session_id!r}: this turn's lock expired before it was stored",
                hint="the turn ran longer than lock_timeout; nothing was stored",
            )
        if status == -1:
            raise conflict(session_id, expected or 0, int(found))
        if status == -3:
            raise deleted(session_id)
        if hold is not None:  # the script released the lock with the write
            hold.released = True

    async def answer(self, session_id: str, key: str) -> bytes | None:
        found = await self._do(self._redis.hget(self._key("answers", session_id), key))
        return None if found is None else bytes(found)

    async def length(self, session_id: str) -> int:
        return int(await self._do(self._redis.llen(self._key("log", session_id))))

    def session_lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._locked(session_id, [], [], lambda taken: (taken, None))

    def session_lock_read(
        self, session_id: str, start: int, key: str | None = None
    ) -> AbstractAsyncContextManager[Locked]:
        """The lock and, in the same script, the log from ``start`` on and ``key``'s answer
        (the ``ReadingLock`` capability: one round trip where ``session_lock`` and ``load``
        take two)."""

        def read(taken: list[Any]) -> tuple[Any, Locked]:
            token, answer, rows = taken
            events = [EVENT_ADAPTER.validate_json(row) for row in rows]
            return token, Locked(events, None if answer is None else bytes(answer))

        keys = [self._key("log", session_id), self._key("answers", session_id)]
        return self._locked(session_id, keys, [start, key or ""], read)

    @asynccontextmanager
    async def _locked(
        self,
        session_id: str,
        more_keys: list[str],
        more_args: list[str | int],
        read: Callable[[Any], tuple[Any, T]],
    ) -> AsyncIterator[T]:
        """Hold the session's lock (``_LOCK``, or ``_LOCK_READ`` with ``more_keys``), yield
        what ``read`` makes of the script's answer, renew the lock meanwhile, release it."""
        key = self._key("lock", session_id)
        keys = [key, self._key("fence"), *more_keys]
        args: list[str | int] = [secrets.token_hex(6), int(self.lock_timeout * 1000), *more_args]
        script = self._lock_read_script if more_keys else self._lock_script
        taken = await take_lock(
            lambda: self._do(self._script(script, keys, args)),
            session_id,
            self.lock_wait,
            0.001,
            self.shown,
        )
        taken, found = read(taken)
        token = taken.decode() if isinstance(taken, bytes) else str(taken)
        hold = self._held[session_id] = _Hold(token)
        # renewed from a third of the timeout on: a timer, and a task only for a turn that
        # runs that long (most are done long before)
        renewing: list[asyncio.Task[None]] = []
        renew = asyncio.get_running_loop().call_later(
            self.lock_timeout / 3,
            lambda: renewing.append(asyncio.create_task(self._renew(key, token))),
        )
        try:
            yield found
        finally:
            renew.cancel()
            for task in renewing:
                task.cancel()
            self._held.pop(session_id, None)
            if not hold.released:
                with contextlib.suppress(StoreUnavailable):  # else it times out by itself
                    await self._do(self._script(self._unlock_script, [key], [token]))

    async def _renew(self, key: str, token: str) -> None:
        """While the turn runs, keep its lock alive (a third of the timeout at a time); a
        holder that dies stops renewing, and the lock frees itself ``lock_timeout`` later."""
        ttl = int(self.lock_timeout * 1000)
        with contextlib.suppress(StoreUnavailable):
            while await self._do(self._script(self._renew_script, [key], [token, ttl])):
                await asyncio.sleep(self.lock_timeout / 3)

    async def expire(self, idle_seconds: float) -> list[str]:
        cutoff = time.time() - idle_seconds
        gone = await self._do(self._redis.zrangebyscore(self._key("touched"), "-inf", cutoff))
        ids = [g.decode() for g in gone]
        for session_id in ids:
            await self.delete(session_id)
        return ids

    async def count(self) -> int:
        return int(await self._do(self._redis.zcard(self._key("touched"))))

    async def sessions(self) -> list[str]:
        return [s.decode() for s in await self._do(self._redis.zrange(self._key("touched"), 0, -1))]

    async def delete(self, session_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key("log", session_id), self._key("answers", session_id))
            pipe.zrem(self._key("touched"), session_id)
            # the tombstone: a turn in flight in another process cannot write it back
            pipe.set(self._key("gone", session_id), b"1", ex=int(TOMBSTONE_SECONDS))
            await self._do(pipe.execute())

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.disconnect()
        await self._redis.aclose()


@hookimpl(trylast=True)  # after the built-in stores in listings
def register_stores(register: Any) -> None:
    register("redis", RedisStore.from_url)
    register("rediss", RedisStore.from_url)
