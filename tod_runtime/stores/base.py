"""Session stores keep each session's event log.

A store is shared by every process serving the same sessions (SQLite file, Redis). Two
capabilities make that safe: ``session_lock(id)``, held by the runtime for a whole turn, so two
turns of one session never interleave across processes; and ``append(..., expected=n)``, a
compare-and-append that refuses to write unless the log still holds exactly ``n`` events (the
fencing check: a turn whose lock expired, or that worked from a stale log, cannot write).

A turn reads what it needs under the lock through ``locked_read``: one step on a store with
``session_lock_read`` (``ReadingLock``: Redis reads in the script that takes the lock), else
``session_lock`` then ``load``. A turn's append is its one write under its lock (the runtime
writes once per lock: a turn's events, a reset), so a store may release the lock with it
(Redis does, in the append's script) and refuse any further write under that lock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import NamedTuple, Protocol, TypeVar, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from tod_runtime.errors import InputError, IOFailure
from tod_runtime.session import Event


class StoreConflict(IOFailure):
    """``append(..., expected=n)`` found a log of another length: another process wrote (or
    deleted) the session meanwhile. Nothing was written."""


class LockTimeout(IOFailure):
    """A session's lock could not be taken in time (another process holds it)."""


T = TypeVar("T")


async def take_lock(
    attempt: Callable[[], Awaitable[T]], session_id: str, wait: float, first: float, shown: str
) -> T:
    """``attempt()`` until it answers something true, pausing ``first`` seconds and then
    twice as long each time (at most 0.05 s); ``LockTimeout`` after ``wait`` seconds. The
    one wait of every store's ``session_lock``."""
    deadline, pause = time.monotonic() + wait, first
    while not (taken := await attempt()):
        if time.monotonic() > deadline:
            raise LockTimeout(
                f"session {session_id!r} is locked by another process",
                file=shown,
                hint="try again later",
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)
    return taken


class StoreUnavailable(IOFailure):
    """The store cannot be reached or failed (a server down, a disk full, a file that is no
    database). The server logs it in full and answers 503 "session store unavailable": its
    message may name the store, and a store's URL may hold a password."""


class SessionDeleted(InputError):
    """A write to a session that was deleted (or expired): the store keeps a tombstone, so
    a turn racing the DELETE in another process never brings the session back."""


TOMBSTONE_SECONDS = 86_400.0  # how long a deleted session's id stays refused


def deleted(session_id: str) -> SessionDeleted:
    return SessionDeleted(
        f"session {session_id!r} was deleted", hint="start a new session; nothing was stored"
    )


Answer = tuple[str, bytes]  # an Idempotency-Key and the turn's answer (TurnResult JSON)


@runtime_checkable
class AnswerStore(Protocol):
    """A store that keeps each keyed turn's answer with its events, written in the same
    transaction (``append(..., answer=(key, json))``), so a client's retry of a turn whose
    answer it never got is answered from the store, never run twice."""

    async def answer(self, session_id: str, key: str) -> bytes | None: ...


class Locked(NamedTuple):
    """What a turn reads once it holds its session's lock: the log from a position on, and
    the answer stored for the turn's Idempotency-Key (None: no key, or none stored)."""

    events: list[Event]
    answer: bytes | None


@runtime_checkable
class ReadingLock(Protocol):
    """A store that reads what a turn needs in the step that takes the session's lock (one
    round trip instead of two or three on Redis): ``session_lock_read(id, start, key)``
    holds the lock as ``session_lock`` does and yields ``Locked`` (the events from
    ``start`` on, the answer for ``key``), read after the lock was taken. Optional: see
    ``locked_read``."""

    def session_lock_read(
        self, session_id: str, start: int, key: str | None = None
    ) -> AbstractAsyncContextManager[Locked]: ...


@asynccontextmanager
async def locked_read(
    store: SessionStore, session_id: str, start: int, key: str | None = None
) -> AsyncIterator[Locked]:
    """Hold ``session_id``'s lock and yield the log from ``start`` on and ``key``'s stored
    answer, read under it: in one step where the store can (``ReadingLock``), else
    ``session_lock``, then ``answer`` (only for a key: the store must then be an
    ``AnswerStore``) and ``load``."""
    reading = getattr(store, "session_lock_read", None)
    if reading is not None:
        async with reading(session_id, start, key) as read:
            yield read
        return
    async with store.session_lock(session_id):
        answer = None if key is None else await store.answer(session_id, key)  # type: ignore[attr-defined]
        yield Locked(await store.load(session_id, start), answer)


def redact_url(url: str) -> str:
    """``url`` without the password of its user info (``redis://:***@host/0``), for every
    message and log line that names a store."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a store URL that does not parse>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@runtime_checkable
class SessionStore(Protocol):
    """Append-only event logs by session id. ``append`` adds a whole turn's events at once,
    so a session never holds half a turn. ``load(session_id, start)`` returns the events from
    position ``start`` on (all of them by default): the runtime keeps each session folded and
    asks only for what it has not seen, so a turn does not cost more as the session grows.

    ``append(session_id, events, expected)``: with ``expected`` set, write only if the log
    holds exactly that many events, else raise ``StoreConflict``. ``length`` is the number
    of events (0: no such session). ``session_lock(id)`` is an async context manager held
    across a turn; it excludes other processes too (a no-op for an in-process store).
    ``expire(idle_seconds)`` deletes the sessions not written for that long and returns
    their ids."""

    async def load(self, session_id: str, start: int = 0) -> list[Event]: ...

    async def append(
        self, session_id: str, events: Sequence[Event], expected: int | None = None
    ) -> None: ...

    async def length(self, session_id: str) -> int: ...

    def session_lock(self, session_id: str) -> AbstractAsyncContextManager[None]: ...

    async def expire(self, idle_seconds: float) -> list[str]: ...

    async def sessions(self) -> list[str]: ...

    async def delete(self, session_id: str) -> None: ...

    async def close(self) -> None: ...


def conflict(session_id: str, expected: int, found: int) -> StoreConflict:
    return StoreConflict(
        f"session {session_id!r} changed meanwhile ({found} events, expected {expected})",
        hint="another process wrote to it; the turn was not stored, send it again",
    )


async def count_sessions(store: SessionStore) -> int:
    """How many sessions ``store`` holds: its ``count()`` when it has one (an optional
    capability: memory, SQLite and Redis answer without listing them), else its listing."""
    count = getattr(store, "count", None)
    if count is not None:
        return int(await count())
    return len(await store.sessions())
